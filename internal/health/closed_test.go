package health

import (
	"slices"
	"testing"
	"time"
)

// Issue 14 item 7: a server's own word on why it ended a session names the
// end when its log line comes before the store's snapshot; the snapshot
// that catches up then has nothing more to say, and a line after it is
// old news.
func TestServerEndReasonNamesTheEnd(t *testing.T) {
	t.Parallel()
	host := sess("host-session-0001", hostClient, t0, t0)
	other := sess("other-session-001", "other", t0, t0)
	closed := func(id string, r EndReason) SessionClosed {
		return SessionClosed{LogLine: LogLine{Server: srv, Session: id}, Reason: r}
	}
	history := closed(other.ID, EndIdle)
	history.History = true
	tests := []struct {
		name  string
		steps []Observation
		store []StoreSession // what the store shows once it catches up
		want  []EventKind
	}{
		{"another client's session, idle", []Observation{closed(other.ID, EndIdle)}, []StoreSession{host}, []EventKind{EvSessionExpired}},
		{"the host's session, idle: a loss", []Observation{closed(host.ID, EndIdle)}, []StoreSession{other}, []EventKind{EvSessionExpired, EvSessionLost}},
		{"the host closed its own: no loss", []Observation{closed(host.ID, EndDeleted)}, []StoreSession{other}, []EventKind{EvSessionEnded}},
		{"the server shut down: lost, not expired", []Observation{closed(host.ID, EndShutdown)}, []StoreSession{other}, []EventKind{EvSessionLost}},
		{"the store said it first: old news", []Observation{snap(host), closed(other.ID, EndIdle)}, []StoreSession{host}, []EventKind{EvSessionEnded}},
		{"a reason it cannot name: the store decides", []Observation{closed(other.ID, "closed")}, []StoreSession{host}, []EventKind{EvSessionEnded}},
		{"history says nothing", []Observation{history}, []StoreSession{host, other}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newTestModel(time.Hour)
			m.Apply(HostUp{PID: 42, Started: t0.Add(-time.Hour)}, t0)
			m.Apply(snap(host, other), t0)
			var evs []Event
			for i, sig := range tc.steps {
				evs = append(evs, m.Apply(sig, t0.Add(time.Duration(i+1)*time.Minute))...)
			}
			evs = append(evs, m.Apply(snap(tc.store...), t0.Add(10*time.Minute))...)
			if got := kinds(evs); !slices.Equal(got, tc.want) {
				t.Fatalf("events %v, want %v", got, tc.want)
			}
			for _, ev := range evs {
				if ev.Kind == EvSessionLost && ev.Session == host.ID && !as[Loss](ev).Incident {
					t.Errorf("the host's session lost without an incident: %+v", ev)
				}
			}
		})
	}
}

// A store read while the killed server's port has no owner yet still shows
// its sessions (the dead server cannot rewrite it): they have not survived
// the restart, and when the new server's fresh store drops them they were
// lost to it, however long they sat idle.
func TestSnapshotWhileServerGoneIsNoSurvival(t *testing.T) {
	t.Parallel()
	const T = 3 * time.Second
	m := newTestModel(T)
	p1, goneAt, p2 := t0.Add(-time.Hour), t0.Add(4*time.Second), t0.Add(3500*time.Millisecond) // the new one started before the old was seen gone
	host := sess("host-session-0001", hostClient, t0, t0)
	snapAt := func(d time.Duration, started time.Time, gone bool, ss ...StoreSession) []Event {
		return m.Apply(StoreSnapshot{Server: srv, Sessions: ss, ServerStarted: started, ServerGone: gone}, t0.Add(d))
	}
	snapAt(0, p1, false, host)
	snapAt(4*time.Second, goneAt, true, host) // a rewrite of the dead server's file
	evs := snapAt(6*time.Second, p2, false)   // the new server's fresh store
	if got := kinds(evs); !slices.Equal(got, []EventKind{EvSessionLost}) || !contains(evs[0].Detail, "server restarted") {
		t.Fatalf("events %+v, want the host's session lost to the restart", evs)
	}
}

// Soak run 10: the server's log ended a session and the store, written a
// moment later, still listed it: the session was journaled new again, and
// then expired a second time. A session ended by the server's own word
// stays ended while the store catches up.
func TestStoreLaggingTheServersWordIsNoNewSession(t *testing.T) {
	t.Parallel()
	m := newTestModel(time.Hour)
	host := sess("host-session-0001", hostClient, t0, t0)
	m.Apply(HostUp{PID: 42, Started: t0.Add(-time.Hour)}, t0)
	m.Apply(snap(host), t0)
	runSteps(t, m, []step{
		{time.Second, SessionClosed{LogLine: LogLine{Server: srv, Session: host.ID}, Reason: EndIdle},
			[]EventKind{EvSessionExpired, EvSessionLost}},
		{time.Second + 20*time.Millisecond, snap(host), nil},
		{time.Second + 60*time.Millisecond, snap(), nil},
	})
}

// Soak run 20: the daemon's clock went back 12 s between two restarts of a
// server. The second restart's start, read in the clock as it is now, came
// out before the first one's, read before the jump; it was not taken for a
// restart, and the sessions it killed were journaled as idle expiries. A
// restart is a different process, however the clock reads its start.
func TestRestartAfterTheClockWentBack(t *testing.T) {
	t.Parallel()
	const T = 2500 * time.Millisecond
	m := newTestModel(T)
	const jump = 12 * time.Second
	p1, p2 := t0.Add(-time.Hour), t0.Add(5*time.Second) // p2 read before the jump
	other := func(last time.Time) StoreSession { return sess("other-session-001", "other-agent", t0, last) }
	snapAt := func(d time.Duration, started time.Time, ss ...StoreSession) []Event {
		return m.Apply(StoreSnapshot{Server: srv, Sessions: ss, ServerStarted: started}, t0.Add(d))
	}
	snapAt(0, p1, other(t0))
	snapAt(6*time.Second, p2, other(t0.Add(6*time.Second))) // survived a restart: a new session of the new server, as it were
	// The clock goes back 12 s; the server restarts again at what now reads t0+2s.
	m.Apply(Woke{Gap: jump}, t0.Add(-4*time.Second))
	snapAt(-4*time.Second+500*time.Millisecond, p2, other(t0.Add(-4*time.Second)))
	p3 := t0.Add(-2 * time.Second)
	evs := snapAt(-2*time.Second+4*time.Second, p3) // 4 s idle: past the timeout, but killed
	if got := kinds(evs); !slices.Equal(got, []EventKind{EvSessionLost}) || !contains(evs[0].Detail, "server restarted") {
		t.Fatalf("events %+v, want the session lost to the restart, not expired", evs)
	}
}
