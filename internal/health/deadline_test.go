package health

import (
	"slices"
	"testing"
	"time"
)

// TestNextDeadline: Tick says nothing before the model's next deadline and
// says what is due at it, for each kind of deadline: a session entering its
// at-risk window (another client's too, silently), a heal overdue, a
// flapping incident calm long enough to close.
func TestNextDeadline(t *testing.T) {
	t.Parallel()
	const T = 10 * time.Minute // at risk 3 min before: max(20 %, min(10 min, 30 %))
	m := newTestModel(T)
	if _, ok := m.NextDeadline(t0); ok {
		t.Fatal("an empty model has a deadline")
	}
	host := sess("host-session-0001", hostClient, t0, t0)
	other := sess("other-session-001", "claude", t0, t0.Add(time.Minute))
	runSteps(t, m, []step{{0, snap(host, other), nil}})

	expectDeadline(t, m, t0, t0.Add(7*time.Minute), []EventKind{EvSessionAtRisk})
	expectDeadline(t, m, t0.Add(7*time.Minute), t0.Add(8*time.Minute), nil) // another client's: no news, but a change
	if at, ok := m.NextDeadline(t0.Add(8 * time.Minute)); ok {
		t.Fatalf("every session at risk, no incident: deadline %v", at)
	}

	lost := SessionLost{LogLine: LogLine{Server: srv, Detail: "Session not found"}}
	started := HealStarted{Server: srv, Strategy: "host_restart", Within: time.Minute}
	runSteps(t, m, []step{{9 * time.Minute, lost, []EventKind{EvSessionLost}}, {9 * time.Minute, started, []EventKind{EvHealStarted}}})
	expectDeadline(t, m, t0.Add(9*time.Minute), t0.Add(10*time.Minute), []EventKind{EvHealFailed})

	s := m.servers[srv]
	s.flap.on, s.flap.calm = true, t0.Add(11*time.Minute)
	expectDeadline(t, m, t0.Add(11*time.Minute), t0.Add(11*time.Minute).Add(flapQuiet), []EventKind{EvRecovered})
}

// TestNextDeadlineOverdue: a deadline already past is due now.
func TestNextDeadlineOverdue(t *testing.T) {
	t.Parallel()
	m := newTestModel(10 * time.Minute)
	runSteps(t, m, []step{{0, snap(sess("host-session-0001", hostClient, t0, t0)), nil}})
	now := t0.Add(time.Hour)
	if at, ok := m.NextDeadline(now); !ok || !at.Equal(now) {
		t.Fatalf("deadline %v (%v), want now", at, ok)
	}
}

// expectDeadline: the deadline seen at now is want; a tick just before it
// says nothing and changes nothing; a tick at it says events.
func expectDeadline(t *testing.T, m *Model, now, want time.Time, events []EventKind) {
	t.Helper()
	at, ok := m.NextDeadline(now)
	if !ok || !at.Equal(want) {
		t.Fatalf("at %v: deadline %v (%v), want %v", now.Sub(t0), at.Sub(t0), ok, want.Sub(t0))
	}
	if evs := m.Tick(at.Add(-time.Millisecond)); len(evs) != 0 {
		t.Fatalf("a tick before the deadline said %v", kinds(evs))
	}
	if again, _ := m.NextDeadline(at.Add(-time.Millisecond)); !again.Equal(at) {
		t.Fatalf("a tick before the deadline moved it to %v", again.Sub(t0))
	}
	if got := kinds(m.Tick(at)); !slices.Equal(got, events) {
		t.Fatalf("a tick at the deadline said %v, want %v", got, events)
	}
}
