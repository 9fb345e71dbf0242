package health

import (
	"slices"
	"testing"
	"time"
)

// CI at 027d4ec (soak seed 1796033718940005853): a client DELETEd its
// session 2.9 s after its last use, past the server's 2.5 s timeout but
// before the server's sweep (every 625 ms) ended it; the store's snapshot
// reached the daemon 84 ms before the log line "closed reason=deleted",
// and a session gone from the store past its timeout was journaled
// expired. When the server's log tells why it ends sessions, the store's
// judgement waits a moment for that word: the log's reason names the end,
// and without one the session is still called expired once the moment
// has passed.
func TestStoreWaitsForTheLogsReason(t *testing.T) {
	t.Parallel()
	const T = 2500 * time.Millisecond
	other := sess("other-session-001", "other", t0, t0)
	earlier := sess("earlier-session-1", "other", t0, t0)
	closed := func(id string, r EndReason) Observation {
		return SessionClosed{LogLine: LogLine{Server: srv, Session: id}, Reason: r}
	}
	tests := []struct {
		name    string
		logLine bool // the log's "deleted" comes after the snapshot
		want    []EventKind
	}{
		{"the log's word comes a moment later", true, []EventKind{EvSessionEnded}},
		{"no word comes: expired", false, []EventKind{EvSessionExpired}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newTestModel(T)
			m.Apply(snap(other, earlier), t0)
			// The server's log has told why it ended a session before.
			m.Apply(closed(earlier.ID, EndDeleted), t0.Add(time.Second))
			at := t0.Add(2900 * time.Millisecond)
			evs := m.Apply(snap(), at)
			if tc.logLine {
				evs = append(evs, m.Apply(closed(other.ID, EndDeleted), at.Add(84*time.Millisecond))...)
			}
			if next, ok := m.NextDeadline(at); ok && next.Before(at.Add(time.Second)) {
				evs = append(evs, m.Tick(next)...)
			}
			evs = append(evs, m.Tick(at.Add(time.Second))...)
			var got []EventKind
			for _, k := range kinds(evs) {
				if k == EvSessionEnded || k == EvSessionExpired {
					got = append(got, k)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("events %v, want %v", kinds(evs), tc.want)
			}
		})
	}
}

// A stop within reasonWait of the store's snapshot journals the end at
// once, as the store says it: nothing waits past the run.
func TestSettleJournalsWhatWaits(t *testing.T) {
	t.Parallel()
	m := newTestModel(2500 * time.Millisecond)
	other := sess("other-session-001", "other", t0, t0)
	earlier := sess("earlier-session-1", "other", t0, t0)
	m.Apply(snap(other, earlier), t0)
	m.Apply(SessionClosed{LogLine: LogLine{Server: srv, Session: earlier.ID}, Reason: EndDeleted}, t0.Add(time.Second))
	at := t0.Add(2900 * time.Millisecond)
	if evs := m.Apply(snap(), at); len(evs) != 0 {
		t.Fatalf("the snapshot journaled %v at once: want it to wait for the log's word", kinds(evs))
	}
	if evs := m.Settle(at.Add(time.Millisecond)); !slices.Equal(kinds(evs), []EventKind{EvSessionExpired}) {
		t.Fatalf("Settle: %v, want the waiting end journaled expired", kinds(evs))
	}
	if evs := m.Tick(at.Add(time.Second)); len(evs) != 0 {
		t.Fatalf("a tick after Settle journaled %v again", kinds(evs))
	}
}

// CI at ee14767: the end that waited for the log's word was journaled from
// the tick with the model's word of that moment on whose session it was,
// and the host's beacon had gone quiet meanwhile (its host was killed): a
// loss the store saw while the beacon named the session was journaled
// "inferred". The end keeps the identity it had when it left the store,
// whether the log's word or the wait ends it.
func TestAwaitedEndKeepsItsIdentity(t *testing.T) {
	t.Parallel()
	const T = 2500 * time.Millisecond
	for _, word := range []bool{false, true} {
		t.Run(map[bool]string{false: "no word: expired", true: "the log's word"}[word], func(t *testing.T) {
			t.Parallel()
			m := newTestModel(T)
			held := sess("held-session-0001", hostClient, t0, t0)
			earlier := sess("earlier-session-1", "other", t0, t0)
			m.Apply(HostUp{PID: 42, Started: t0.Add(-time.Minute)}, t0)
			m.Apply(snap(held, earlier), t0)
			m.Apply(BeaconSeen{PID: 42, Held: map[string]Held{srv: {Session: held.ID, Connected: true, Since: t0}}}, t0)
			m.Apply(SessionClosed{LogLine: LogLine{Server: srv, Session: earlier.ID}, Reason: EndDeleted}, t0.Add(time.Second))
			at := t0.Add(2900 * time.Millisecond)
			evs := m.Apply(snap(), at)
			// The host is killed; its beacon says nothing any more.
			evs = append(evs, m.Apply(BeaconSeen{PID: 42}, at.Add(10*time.Millisecond))...)
			if word {
				evs = append(evs, m.Apply(SessionClosed{LogLine: LogLine{Server: srv, Session: held.ID}, Reason: EndIdle}, at.Add(40*time.Millisecond))...)
			}
			evs = append(evs, m.Tick(at.Add(time.Second))...)
			lost := 0
			for _, ev := range evs {
				if ev.Kind != EvSessionLost {
					continue
				}
				lost++
				if src := as[Loss](ev).Source; src != SourceBeacon {
					t.Errorf("%s: source %q, want %q (the beacon named it when it left the store)", ev.Kind, src, SourceBeacon)
				}
			}
			if lost == 0 {
				t.Fatalf("events %v: want the host's session lost", kinds(evs))
			}
		})
	}
}
