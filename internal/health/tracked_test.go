package health

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestTrackedRoundTrip(t *testing.T) {
	m := newTestModel(3 * time.Second)
	if got := m.Tracked(); len(got) != 0 {
		t.Fatalf("before any snapshot: %v, want nothing (no baseline to keep)", got)
	}
	m.Apply(snap(sess("host-1", hostClient, t0, t0), sess("other-1", "other", t0, time.Time{})), t0)
	got := m.Tracked()[srv]
	ids := []string{}
	for _, s := range got {
		ids = append(ids, s.ID)
	}
	if !slices.Equal(ids, []string{"host-1", "other-1"}) {
		t.Fatalf("tracked ids %v", ids)
	}
	if !got[1].LastActivity.IsZero() {
		t.Fatalf("an activity the store never gave was made up: %v", got[1].LastActivity)
	}
}

// A restarted daemon judges what vanished while it was down.
func TestRestoreTrackedJudgesWhatVanishedMeanwhile(t *testing.T) {
	tests := []struct {
		name    string
		restore []StoreSession
		saved   time.Time // the last run saw them alive until then
		first   Observation
		want    []EventKind
		detail  string // of the first event, when set
	}{
		{"host session expired meanwhile",
			[]StoreSession{sess("host-1", hostClient, t0, t0)}, t0.Add(5 * time.Second),
			snap(), []EventKind{EvSessionExpired, EvSessionLost}, ""},
		{"other client's session ended meanwhile",
			[]StoreSession{sess("host-1", hostClient, t0, t0.Add(9*time.Second)), sess("other-1", "other", t0, t0.Add(9*time.Second))}, t0.Add(9 * time.Second),
			snap(sess("host-1", hostClient, t0, t0.Add(9*time.Second))), []EventKind{EvSessionEnded}, ""},
		// The soak found it: a session deleted 1.4 s into a 2 s timeout while
		// the daemon was down was journaled as expired after 5 s idle. Its
		// timeout fell after the last run stopped looking: it may have
		// expired, or ended another way, and the journal must not say which.
		{"other client's session gone past its timeout, which came after the last look",
			[]StoreSession{sess("other-1", "other", t0, t0)}, t0.Add(time.Second),
			snap(), []EventKind{EvSessionEnded}, "session of other on mem ended while the watchdog was not running, after at most 10s idle (timeout 3s): it may have expired"},
		{"host session gone past its timeout, which came after the last look",
			[]StoreSession{sess("host-1", hostClient, t0, t0)}, t0.Add(time.Second),
			snap(), []EventKind{EvSessionLost}, ""},
		{"a session opened meanwhile is new",
			[]StoreSession{sess("host-1", hostClient, t0, t0.Add(9*time.Second))}, t0.Add(9 * time.Second),
			snap(sess("host-1", hostClient, t0, t0.Add(9*time.Second)), sess("other-2", "other", t0.Add(9*time.Second), t0.Add(9*time.Second))),
			[]EventKind{EvSessionNew}, ""},
		{"nothing restored: the first snapshot is a baseline",
			nil, time.Time{}, snap(sess("other-2", "other", t0, t0)), nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestModel(3 * time.Second)
			if tt.restore != nil {
				m.RestoreTracked(srv, tt.restore, tt.saved, t0.Add(10*time.Second))
			}
			evs := m.Apply(tt.first, t0.Add(10*time.Second))
			if got := kinds(evs); !slices.Equal(got, tt.want) {
				t.Fatalf("events %v, want %v (%+v)", got, tt.want, evs)
			}
			if tt.detail != "" && evs[0].Detail != tt.detail {
				t.Fatalf("detail %q, want %q", evs[0].Detail, tt.detail)
			}
		})
	}
}

func TestRestoreTrackedNeverOverridesALiveView(t *testing.T) {
	m := newTestModel(3 * time.Second)
	m.Apply(snap(sess("host-1", hostClient, t0, t0)), t0)
	m.RestoreTracked(srv, []StoreSession{sess("stale", hostClient, t0, t0)}, t0, t0)
	m.RestoreTracked("no-such-server", []StoreSession{sess("x", hostClient, t0, t0)}, t0, t0)
	if got := m.Tracked()[srv]; len(got) != 1 || got[0].ID != "host-1" {
		t.Fatalf("tracked %v, want only host-1", got)
	}
}

// After the wall clock was set back, a session used "in the future" was
// used that much earlier on the clock as it now reads: keep-warm neither
// waits for the clock to catch up nor takes the use for one just now (soak
// seed 1796033718940005853: a restart pinged at 13.2 s on a clock 11 s
// ahead, the clock went back at 4.1 s, and taking the ping for a use at
// 4.1 s let the 3 s session expire at 5.5 s). Any use still ahead counts
// as now.
func TestWokeBackwardsMovesActivityBack(t *testing.T) {
	tests := []struct {
		name     string
		used     time.Duration // on the clock before the jump
		gap      time.Duration // the jump; negative: set back
		wantIdle time.Duration // 3 s after the jump, which read t0+2s
	}{
		{"a ping on the clock 11 s ahead, 1 s before it went back", 12 * time.Second, -11 * time.Second, 4 * time.Second},
		{"used an hour ahead, the clock set back an hour", time.Hour, -time.Hour, 5 * time.Second},
		{"still ahead after the jump: used now", time.Hour, -time.Minute, 3 * time.Second},
		{"a jump of unknown direction: used now", time.Hour, time.Hour, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestModel(time.Hour)
			used := t0.Add(tt.used)
			m.Apply(snap(sess("host-1", hostClient, t0, used)), used)
			back := t0.Add(2 * time.Second)
			m.Apply(Woke{Gap: tt.gap}, back)
			targets := m.WarmTargets(back.Add(3 * time.Second))
			if len(targets) != 1 || targets[0].Idle != tt.wantIdle {
				t.Fatalf("warm targets %+v, want host-1 idle %s", targets, tt.wantIdle)
			}
		})
	}
}

// An incident opened before the wall clock was set back recovers after a
// time that is not negative: it opened the jump earlier.
func TestWokeBackwardsRecoveryTakesNoNegativeTime(t *testing.T) {
	m := newTestModel(time.Hour)
	later := t0.Add(time.Minute)
	m.RestoreIncident(srv, "host-1", later)
	back := t0.Add(2 * time.Second)
	m.Apply(Woke{Gap: -time.Minute}, back)
	evs := m.Apply(Reconnected{LogLine: LogLine{Server: srv}}, back.Add(300*time.Millisecond))
	if len(evs) != 1 || evs[0].Kind != EvRecovered || as[Recovery](evs[0]).Took != 2300*time.Millisecond {
		t.Fatalf("events %+v, want recovered after 2.3s (opened at what now reads t0)", evs)
	}
}

// A host restarted within seconds does not adopt the session its dead
// predecessor opened: that one must be let go, not kept warm. And a session
// the new host opened is its own even when it was seen before the old one's
// death was noticed. With a precise start (Began) the line between the two
// is sharp; with a coarse one it must allow a second.
func TestRestartedHostDoesNotAdoptOldSession(t *testing.T) {
	sec := func(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Second))) }
	tests := []struct {
		name     string
		created  time.Time // of the host client's session, seen at once
		began    time.Time // the new host's precise start; zero: unknown
		newStart time.Time // the new host's start as read coarsely
		want     int       // warm targets afterwards
	}{
		{"opened seconds before the new host (coarse start)", sec(1), time.Time{}, sec(3), 0},
		// The soak found both: a host that lived under a second, its successor started
		// half a second after its session...
		{"opened half a second before the new host (precise start)", sec(2.5), sec(3), sec(2.2), 0},
		// ...and the successor's session seen before its predecessor's death was noticed.
		{"the new host's own, seen while the old was thought to run", sec(3.05), sec(3), sec(2.2), 1},
		{"the new host's own, coarse start a second early", sec(3.05), time.Time{}, sec(2.2), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestModel(3 * time.Second)
			m.Apply(HostUp{PID: 1, Started: t0}, t0)
			m.Apply(snap(sess("host-1", hostClient, tt.created, tt.created)), tt.created)
			m.Apply(HostDown{}, sec(3.1))
			m.Apply(HostUp{PID: 2, Started: tt.newStart, Began: tt.began}, sec(3.2))
			if got := m.WarmTargets(sec(3.3)); len(got) != tt.want {
				t.Fatalf("warm targets %+v, want %d", got, tt.want)
			}
		})
	}
}

// With a process watcher configured, no session is the host's until the
// watcher has looked: a daemon restarted after the host died must not ping
// the sessions it restored (the soak's dead-host pings right after a
// kill -9 of the daemon).
func TestNoWarmTargetsBeforeTheHostWatcherLooked(t *testing.T) {
	m := New(Config{HostName: "DSH", ClientName: hostClient, HostWatched: true,
		Servers: []ServerConfig{{Name: srv, URL: "http://127.0.0.1:14242/mcp", IdleTimeout: 3 * time.Second}}})
	m.RestoreTracked(srv, []StoreSession{sess("host-1", hostClient, t0, t0)}, t0, t0)
	if got := m.WarmTargets(t0.Add(2 * time.Second)); len(got) != 0 {
		t.Fatalf("warm targets %+v before the watcher looked, want none", got)
	}
	m.Apply(HostUp{PID: 1, Started: t0.Add(-time.Minute)}, t0.Add(2*time.Second))
	if got := m.WarmTargets(t0.Add(2 * time.Second)); len(got) != 1 {
		t.Fatalf("warm targets %+v once the host is seen, want host-1", got)
	}
}

// A session saved with an activity "in the future" (before the clock was
// set back) is restored as active now: keep-warm must not wait for the
// clock to catch up. The soak found it after a jump and a kill -9.
func TestRestoreTrackedClampsFutureActivity(t *testing.T) {
	m := newTestModel(3 * time.Second)
	m.RestoreTracked(srv, []StoreSession{sess("host-1", hostClient, t0, t0.Add(time.Minute))}, t0, t0)
	m.Apply(snap(sess("host-1", hostClient, t0, t0)), t0)
	got := m.WarmTargets(t0.Add(2 * time.Second))
	if len(got) != 1 || got[0].Idle != 2*time.Second {
		t.Fatalf("warm targets %+v, want host-1 idle 2s", got)
	}
}

// A restarted daemon with an incident open, and the new session the host
// opened for it known only from the last run's saved state: the beacon
// naming it is no proof it is alive now (it may have expired while the
// daemon was down; soak: a recovered naming a session dead at the claim).
// It must be seen in this run's store, or answer a ping, first.
func TestRestoredSessionIsNoProofOfRecovery(t *testing.T) {
	lost, next := "host-lost-0001", "host-next-0002"
	since := t0.Add(-5 * time.Second)
	start := func() *Model {
		m := newTestModel(time.Minute)
		m.RestoreIncident(srv, lost, since)
		m.RestoreTracked(srv, []StoreSession{sess(next, hostClient, t0.Add(-4*time.Second), t0.Add(-4*time.Second))}, t0, t0)
		return m
	}
	held := beaconSig(map[string]Held{srv: {Session: next, Connected: true, Since: t0.Add(-4 * time.Second)}})

	m := start()
	if evs := m.Apply(held, t0); slices.Contains(kinds(evs), EvRecovered) {
		t.Fatalf("recovered on the saved state's word alone: %+v", evs)
	}
	if got := m.Verify(t0); len(got) != 1 || got[0].SessionID != next {
		t.Fatalf("verify targets %+v, want the held session pinged", got)
	}
	if evs := m.Apply(KeepWarmAnswered{Server: srv, Session: next, Outcome: OutcomeAlive}, t0.Add(time.Second)); !slices.Contains(kinds(evs), EvRecovered) {
		t.Fatalf("the held session answered, events %+v; want recovered", evs)
	}

	m = start()
	m.Apply(snap(sess(next, hostClient, t0.Add(-4*time.Second), t0)), t0) // this run's store shows it
	if evs := m.Apply(held, t0.Add(time.Second)); !slices.Contains(kinds(evs), EvRecovered) {
		t.Fatalf("the store of this run shows the held session, events %+v; want recovered", evs)
	}
}

// TrackedDigest moves exactly when what a save writes does (Tracked and
// the open incident): a save skipped on an equal digest loses nothing, and
// one that is not skipped has something to write.
func TestTrackedDigestMovesWithWhatIsSaved(t *testing.T) {
	m := newTestModel(3 * time.Second)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	steps := []struct {
		name  string
		o     Observation
		at    time.Time
		moves bool // what is saved changes
	}{
		{"first snapshot", snap(sess("host-1", hostClient, t0, t0), sess("other-1", "other", t0, time.Time{})), t0, true},
		{"the same snapshot later", snap(sess("host-1", hostClient, t0, t0), sess("other-1", "other", t0, time.Time{})), at(1), false},
		{"activity moved", snap(sess("host-1", hostClient, t0, at(1)), sess("other-1", "other", t0, time.Time{})), at(1), true},
		{"a client changed", snap(sess("host-1", hostClient, t0, at(1)), sess("other-1", "other-2", t0, time.Time{})), at(1), true},
		{"a session came", snap(sess("host-1", hostClient, t0, at(1)), sess("other-1", "other-2", t0, time.Time{}), sess("x", "other", at(2), at(2))), at(2), true},
		{"the host's session expired: an incident", snap(sess("other-1", "other-2", t0, time.Time{}), sess("x", "other", at(2), at(2))), at(5), true},
		{"nothing new", snap(sess("other-1", "other-2", t0, time.Time{}), sess("x", "other", at(2), at(2))), at(6), false},
		{"the host's new session: recovered", snap(sess("other-1", "other-2", t0, time.Time{}), sess("x", "other", at(2), at(2)), sess("host-2", hostClient, at(7), at(7))), at(7), true},
	}
	view := func() string {
		id, since, open := m.Incident(srv)
		return fmt.Sprint(m.Tracked(), id, since, open)
	}
	lastView, lastDigest := view(), m.TrackedDigest()
	for _, st := range steps {
		m.Apply(st.o, st.at)
		m.Tick(st.at)
		v, d := view(), m.TrackedDigest()
		if (v != lastView) != st.moves || (d != lastDigest) != st.moves {
			t.Fatalf("%s: what is saved changed %v (%s), the digest changed %v; want both %v", st.name, v != lastView, v, d != lastDigest, st.moves)
		}
		lastView, lastDigest = v, d
	}
}
