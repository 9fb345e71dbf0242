package journal

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// Issue 15: a store or log that names a new session every time could
// rotate the journal's history away. Past the burst, session events are
// counted, with a warning when the limit engages and one when it lifts;
// incidents are never held back.
func TestJournalLimitCountsAFloodOfSessionEvents(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	l := NewLimit()
	journaled, warnings := 0, 0
	for i := range 10000 {
		at := t0.Add(time.Duration(i) * time.Millisecond) // 10 s of 1,000 a second
		ev := health.Event{Time: at, Kind: health.EvSessionNew, Server: "mem", Session: fmt.Sprintf("s-%06d", i)}
		ok, warn := l.Admit(ev, at)
		warnings += len(warn)
		if ok {
			journaled++
		}
		incident := health.Event{Time: at, Kind: health.EvSessionLost, Server: "mem", Facts: health.Loss{Incident: true}}
		if ok, _ := l.Admit(incident, at); !ok {
			t.Fatal("an incident was held back by the limit")
		}
	}
	if journaled > limitBurst+11 || journaled < limitBurst {
		t.Fatalf("journaled %d of 10000 in 10 s, want the burst (%d) and 1 a second", journaled, limitBurst)
	}
	if warnings != 1 {
		t.Fatalf("%d warnings as the limit engaged, want 1", warnings)
	}
	if lifted := l.Lifted(t0.Add(time.Minute)); len(lifted) != 0 {
		t.Fatalf("lifted before the bucket refilled: %+v", lifted)
	}
	// The loop sleeps until the lift: nothing before it, the warning at it.
	at, ok := l.NextLift()
	if !ok || at.Before(t0.Add(time.Minute)) || at.After(t0.Add(11*time.Minute)) {
		t.Fatalf("next lift %v (%v), want within the 10 min a full refill takes", at.Sub(t0), ok)
	}
	if lifted := l.Lifted(at.Add(-time.Second)); len(lifted) != 0 {
		t.Fatalf("lifted a second before its deadline: %+v", lifted)
	}
	lifted := l.Lifted(at)
	if len(lifted) != 1 || !strings.Contains(lifted[0].Detail, fmt.Sprintf("session_new %d", 10000-journaled)) {
		t.Fatalf("lifted %+v, want one warning counting %d session_new", lifted, 10000-journaled)
	}
	if again := l.Lifted(t0.Add(2 * time.Hour)); len(again) != 0 {
		t.Fatalf("lifted twice: %+v", again)
	}
	if at, ok := l.NextLift(); ok {
		t.Fatalf("a lifted limit still has a deadline: %v", at)
	}
}
