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
	closed := func(id string, r EndReason) Signal {
		return Signal{Kind: SigSessionClosed, Server: srv, Session: id, EndReason: r}
	}
	history := closed(other.ID, EndIdle)
	history.History = true
	tests := []struct {
		name  string
		steps []Signal
		store []StoreSession // what the store shows once it catches up
		want  []EventKind
	}{
		{"another client's session, idle", []Signal{closed(other.ID, EndIdle)}, []StoreSession{host}, []EventKind{EvSessionExpired}},
		{"the host's session, idle: a loss", []Signal{closed(host.ID, EndIdle)}, []StoreSession{other}, []EventKind{EvSessionExpired, EvSessionLost}},
		{"the host closed its own: no loss", []Signal{closed(host.ID, EndDeleted)}, []StoreSession{other}, []EventKind{EvSessionEnded}},
		{"the server shut down: lost, not expired", []Signal{closed(host.ID, EndShutdown)}, []StoreSession{other}, []EventKind{EvSessionLost}},
		{"the store said it first: old news", []Signal{snap(host), closed(other.ID, EndIdle)}, []StoreSession{host}, []EventKind{EvSessionEnded}},
		{"a reason it cannot name: the store decides", []Signal{closed(other.ID, "closed")}, []StoreSession{host}, []EventKind{EvSessionEnded}},
		{"history says nothing", []Signal{history}, []StoreSession{host, other}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newTestModel(time.Hour)
			m.Apply(Signal{Kind: SigHostUp, PID: 42, Started: t0.Add(-time.Hour)}, t0)
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
				if ev.Kind == EvSessionLost && ev.Session == host.ID && !ev.Incident {
					t.Errorf("the host's session lost without an incident: %+v", ev)
				}
			}
		})
	}
}
