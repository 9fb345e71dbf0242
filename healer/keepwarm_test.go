package healer

import (
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

func TestKeepWarmDue(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	target := func(idle, timeout time.Duration, known bool) health.WarmTarget {
		return health.WarmTarget{Server: "mem", SessionID: "s", Idle: idle, Timeout: timeout, ActivityKnown: known}
	}
	type call struct {
		at     time.Duration
		target health.WarmTarget
		force  bool
		want   bool
	}
	tests := []struct {
		name  string
		calls []call
	}{
		{"half the timeout, known activity", []call{
			{0, target(5*time.Hour, 12*time.Hour, true), false, false},
			{0, target(6*time.Hour, 12*time.Hour, true), false, true},
		}},
		{"never more often than 5 s", []call{
			{0, target(6*time.Hour, 12*time.Hour, true), false, true},
			{4 * time.Second, target(6*time.Hour, 12*time.Hour, true), false, false},
			{5 * time.Second, target(6*time.Hour, 12*time.Hour, true), false, true},
		}},
		{"short timeouts: a quarter of the timeout is the gap", []call{
			{0, target(1500*time.Millisecond, 3*time.Second, true), false, true},
			{700 * time.Millisecond, target(1500*time.Millisecond, 3*time.Second, true), false, false},
			{750 * time.Millisecond, target(1500*time.Millisecond, 3*time.Second, true), false, true},
		}},
		{"unknown activity: at once, then every quarter timeout", []call{
			{0, target(0, 4*time.Hour, false), false, true},
			{59 * time.Minute, target(0, 4*time.Hour, false), false, false},
			{time.Hour, target(0, 4*time.Hour, false), false, true},
		}},
		{"a clock set back does not hold pings until it catches up", []call{
			{time.Hour, target(1500*time.Millisecond, 3*time.Second, true), false, true},
			{0, target(1500*time.Millisecond, 3*time.Second, true), false, true},
		}},
		{"a wake forces a ping, within the gap", []call{
			{0, target(time.Hour, 12*time.Hour, true), false, false},
			{0, target(time.Hour, 12*time.Hour, true), true, true},
			{time.Second, target(time.Hour, 12*time.Hour, true), true, false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k := NewKeepWarm()
			for i, c := range tt.calls {
				got := len(k.Due([]health.WarmTarget{c.target}, t0.Add(c.at), c.force)) == 1
				if got != c.want {
					t.Fatalf("call %d at %s: due = %v, want %v", i, c.at, got, c.want)
				}
			}
		})
	}
}

func TestKeepWarmNext(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	k := NewKeepWarm()
	known := health.WarmTarget{Server: "a", Idle: time.Hour, Timeout: 12 * time.Hour, ActivityKnown: true}
	if got := k.Next([]health.WarmTarget{known}, t0); got != 5*time.Hour {
		t.Fatalf("Next = %s, want 5h", got)
	}
	if got := k.Next(nil, t0); got >= 0 {
		t.Fatalf("Next with no targets = %s, want negative", got)
	}
	k.Due([]health.WarmTarget{{Server: "b", Timeout: 4 * time.Hour}}, t0, false)
	unknown := health.WarmTarget{Server: "b", Timeout: 4 * time.Hour}
	if got := k.Next([]health.WarmTarget{known, unknown}, t0.Add(30*time.Minute)); got != 30*time.Minute {
		t.Fatalf("Next = %s, want 30m", got)
	}
}

// A ping Due chose but could not send is taken back: the next look is due.
func TestKeepWarmUnsent(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	target := health.WarmTarget{Server: "mem", SessionID: "s", Idle: 1500 * time.Millisecond, Timeout: 3 * time.Second, ActivityKnown: true}
	k := NewKeepWarm()
	if len(k.Due([]health.WarmTarget{target}, t0, false)) != 1 {
		t.Fatal("not due at half the timeout")
	}
	k.Unsent("mem")
	if len(k.Due([]health.WarmTarget{target}, t0.Add(20*time.Millisecond), false)) != 1 {
		t.Fatal("a ping that never went out still held the next one back")
	}
}
