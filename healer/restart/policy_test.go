package restart

import (
	"testing"
	"time"
)

// limT0 is the fake clock's origin; steps are offsets from it.
var limT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// limStep is one call on a limiter at limT0+at. For "allow", the whole
// Decision is checked.
type limStep struct {
	op      string // allow | record | healthy | unhealthy
	at      time.Duration
	ok      bool
	wait    time.Duration
	reason  string
	limited bool
}

func limAllow(at time.Duration) limStep  { return limStep{op: "allow", at: at, ok: true} }
func limRecord(at time.Duration) limStep { return limStep{op: "record", at: at} }

// limRefused expects a backoff refusal at at, wait long.
func limRefused(at, wait time.Duration) limStep {
	return limStep{op: "allow", at: at, wait: wait, reason: "backoff: next restart allowed in " + ceilSecond(wait).String()}
}

// limRestartAt is allow-then-record: a restart the limiter let happen.
func limRestartAt(at time.Duration) []limStep { return []limStep{limAllow(at), limRecord(at)} }

func limSteps(parts ...[]limStep) []limStep {
	var out []limStep
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

const (
	limSecond = time.Second
	limMinute = time.Minute
)

// Long: a table of 12 cases.
func TestRestartLimiter(t *testing.T) {
	limitAt := func(at, wait time.Duration, until time.Duration) limStep {
		return limStep{op: "allow", at: at, wait: wait, limited: true,
			reason: "limit: 5 restarts within 30m0s; giving up until " + limT0.Add(until).Format(time.RFC3339)}
	}
	// The default ladder: restarts at 0, 10, 30, 70 and 150 s fill the burst.
	fiveRestarts := limSteps(limRestartAt(0), limRestartAt(10*limSecond), limRestartAt(30*limSecond), limRestartAt(70*limSecond), limRestartAt(150*limSecond))
	tests := []struct {
		name   string
		policy Policy
		steps  []limStep
	}{
		{
			name:   "first restart immediate, then 10s, 20s, 40s",
			policy: DefaultPolicy(),
			steps: limSteps(
				[]limStep{limAllow(0), limAllow(0)}, // asking twice changes nothing
				limRestartAt(0),
				[]limStep{limRefused(1*limSecond, 9*limSecond), limRefused(9*limSecond+500*time.Millisecond, 500*time.Millisecond)},
				limRestartAt(10*limSecond),
				[]limStep{limRefused(10*limSecond, 20*limSecond), limRefused(29*limSecond, limSecond)},
				limRestartAt(30*limSecond),
				[]limStep{limRefused(69*limSecond, limSecond)},
				limRestartAt(70*limSecond),
				[]limStep{limRefused(100*limSecond, 50*limSecond)},
			),
		},
		{
			name:   "doubling capped at 5m",
			policy: Policy{Burst: 100},
			steps: limSteps(
				limRestartAt(0), limRestartAt(10*limSecond), limRestartAt(30*limSecond), limRestartAt(70*limSecond), limRestartAt(150*limSecond),
				limRestartAt(310*limSecond), // waited 160 s
				[]limStep{limRefused(310*limSecond, 5*limMinute)},
				limRestartAt(610*limSecond), // 320 s capped to 300 s
				[]limStep{limRefused(610*limSecond, 5*limMinute), limRefused(909*limSecond, limSecond)},
				limRestartAt(910*limSecond),
			),
		},
		{
			name:   "sixth restart within 30m limRefused by the limit",
			policy: DefaultPolicy(),
			steps: limSteps(fiveRestarts,
				[]limStep{limitAt(310*limSecond, 30*limMinute-310*limSecond, 30*limMinute)},
				[]limStep{limitAt(29*limMinute, limMinute, 30*limMinute)},
			),
		},
		{
			name:   "window slides: the oldest restart leaves after 30m",
			policy: DefaultPolicy(),
			steps: limSteps(fiveRestarts,
				limRestartAt(30*limMinute), // the restart at 0 left the window at exactly 30m
				// Full again until 10 s leaves at 30m10s; the backoff (capped
				// at 5m) runs longer, and the wait says so.
				[]limStep{limitAt(30*limMinute+5*limSecond, 5*limMinute-5*limSecond, 30*limMinute+10*limSecond)},
				[]limStep{limRefused(30*limMinute+10*limSecond, 5*limMinute-10*limSecond)},
				limRestartAt(35*limMinute),
			),
		},
		{
			name:   "backoff resets after an hour of health",
			policy: DefaultPolicy(),
			steps: limSteps(
				limRestartAt(0), limRestartAt(10*limSecond), limRestartAt(30*limSecond), // backoff now 40 s
				[]limStep{{op: "healthy", at: 40 * limSecond}},
				limRestartAt(40*limSecond+time.Hour),
				// Started over: the next wait is the initial 10 s, not 80 s.
				[]limStep{limRefused(40*limSecond+time.Hour, 10*limSecond), limAllow(50*limSecond + time.Hour)},
			),
		},
		{
			name:   "no reset after 59 minutes of health",
			policy: DefaultPolicy(),
			steps: limSteps(
				limRestartAt(0), limRestartAt(10*limSecond), limRestartAt(30*limSecond),
				[]limStep{{op: "healthy", at: 40 * limSecond}},
				limRestartAt(40*limSecond+59*limMinute),
				[]limStep{limRefused(40*limSecond+59*limMinute, 80*limSecond)},
			),
		},
		{
			name:   "unhealthy ends the healthy stretch",
			policy: DefaultPolicy(),
			steps: limSteps(
				limRestartAt(0), limRestartAt(10*limSecond), limRestartAt(30*limSecond),
				[]limStep{{op: "healthy", at: 40 * limSecond}, {op: "unhealthy", at: 50 * limMinute}},
				limRestartAt(2*time.Hour),
				[]limStep{limRefused(2*time.Hour, 80*limSecond)},
			),
		},
		{
			name:   "health reported again keeps its first start",
			policy: DefaultPolicy(),
			steps: limSteps(
				limRestartAt(0), limRestartAt(10*limSecond), limRestartAt(30*limSecond),
				[]limStep{{op: "healthy", at: 40 * limSecond}, {op: "healthy", at: 30 * limMinute}, {op: "healthy", at: 59 * limMinute}},
				limRestartAt(40*limSecond+time.Hour),
				[]limStep{limRefused(40*limSecond+time.Hour, 10*limSecond)},
			),
		},
		{
			name:   "health cannot predate the latest restart",
			policy: DefaultPolicy(),
			steps: limSteps(
				limRestartAt(0), limRestartAt(10*limSecond), limRestartAt(30*limSecond),
				[]limStep{{op: "healthy", at: -2 * time.Hour}},
				limRestartAt(30*limSecond+59*limMinute),
				[]limStep{limRefused(30*limSecond+59*limMinute, 80*limSecond)},
			),
		},
		{
			name:   "a restart ends the healthy stretch",
			policy: DefaultPolicy(),
			steps: limSteps(
				limRestartAt(0), limRestartAt(10*limSecond), limRestartAt(30*limSecond),
				[]limStep{{op: "healthy", at: 40 * limSecond}},
				limRestartAt(50*limMinute), // healthy 50 min: no reset yet; backoff 80 s
				// An hour after health began, but health ended with the
				// restart at 50m: no reset, so 160 s, not 10 s.
				limRestartAt(40*limSecond+time.Hour),
				[]limStep{limRefused(40*limSecond+time.Hour, 160*limSecond)},
			),
		},
		{
			name:   "zero policy takes the defaults",
			policy: Policy{},
			steps: limSteps(fiveRestarts,
				[]limStep{limitAt(310*limSecond, 30*limMinute-310*limSecond, 30*limMinute)},
			),
		},
		{
			name:   "custom policy",
			policy: Policy{Initial: limSecond, Max: 3 * limSecond, Burst: 2, Window: limMinute, ResetAfter: 10 * limSecond},
			steps: limSteps(
				limRestartAt(0),
				[]limStep{limRefused(0, limSecond)},
				limRestartAt(limSecond),
				[]limStep{{op: "allow", at: 3 * limSecond, wait: 57 * limSecond, limited: true,
					reason: "limit: 2 restarts within 1m0s; giving up until " + limT0.Add(limMinute).Format(time.RFC3339)}},
				limRestartAt(limMinute),
				// Full again (1 s and 1m in the window) and the backoff of
				// 4 s capped at 3 s runs longer than the window's 1 s.
				[]limStep{{op: "allow", at: limMinute, wait: 3 * limSecond, limited: true,
					reason: "limit: 2 restarts within 1m0s; giving up until " + limT0.Add(limMinute+limSecond).Format(time.RFC3339)}},
			),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := NewLimiter(tc.policy)
			for i, s := range tc.steps {
				runLimStep(t, l, i, s)
			}
		})
	}
}

// runLimStep applies s to l and checks what Allow and Decide answer.
func runLimStep(t *testing.T, l *Limiter, i int, s limStep) {
	t.Helper()
	now := limT0.Add(s.at)
	switch s.op {
	case "record":
		l.Record(now)
		return
	case "healthy":
		l.Healthy(now)
		return
	case "unhealthy":
		l.Unhealthy()
		return
	}
	d := l.Decide(now)
	ok, wait, reason := l.Allow(now)
	if ok != d.OK || wait != d.Wait || reason != d.Reason {
		t.Fatalf("step %d: Allow = %v, %v, %q disagrees with Decide = %+v", i, ok, wait, reason, d)
	}
	if d.OK != s.ok || d.Wait != s.wait || d.Reason != s.reason || d.Limited != s.limited {
		t.Fatalf("step %d at %v: got %+v\nwant ok=%v wait=%v reason=%q limited=%v",
			i, s.at, d, s.ok, s.wait, s.reason, s.limited)
	}
}

func TestRestartPolicyDefaults(t *testing.T) {
	got := NewLimiter(Policy{Max: time.Second}).Policy()
	want := DefaultPolicy()
	want.Max = want.Initial // a cap below the first wait is raised to it
	if got != want {
		t.Errorf("Policy() = %+v, want %+v", got, want)
	}
}

func TestCeilSecond(t *testing.T) {
	tests := []struct{ in, want time.Duration }{
		{0, 0},
		{time.Nanosecond, time.Second},
		{time.Second, time.Second},
		{39*time.Second + time.Millisecond, 40 * time.Second},
		{40 * time.Second, 40 * time.Second},
	}
	for _, tc := range tests {
		if got := ceilSecond(tc.in); got != tc.want {
			t.Errorf("ceilSecond(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzRestartLimiter drives a limiter with arbitrary gaps, honouring its
// answers as the healer would, and checks the promises: no window ever
// holds more than Burst restarts, and no two restarts are closer than
// Initial unless a healthy hour came between them.
func FuzzRestartLimiter(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{255, 255, 255, 0, 0, 0, 128, 64})
	f.Add([]byte{10, 200, 10, 200, 10, 200, 10, 200, 10, 200, 10, 200})
	f.Fuzz(func(t *testing.T, gaps []byte) {
		p := DefaultPolicy()
		l := NewLimiter(p)
		now := limT0
		var done []time.Time
		for i, g := range gaps {
			now = now.Add(time.Duration(g) * 7 * time.Second)
			if g%5 == 0 {
				l.Healthy(now)
			}
			if g%7 == 0 {
				l.Unhealthy()
			}
			ok, wait, reason := l.Allow(now)
			if ok != (reason == "") || ok != (wait == 0) {
				t.Fatalf("gap %d: inconsistent answer %v %v %q", i, ok, wait, reason)
			}
			if !ok {
				continue
			}
			l.Record(now)
			done = append(done, now)
			inWindow := 0
			for _, r := range done {
				if now.Sub(r) < p.Window {
					inWindow++
				}
			}
			if inWindow > p.Burst {
				t.Fatalf("gap %d: %d restarts within %v", i, inWindow, p.Window)
			}
		}
	})
}
