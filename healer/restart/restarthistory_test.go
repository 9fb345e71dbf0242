package restart

import (
	"testing"
	"time"
)

// limLimited expects the burst limit's refusal at at: wait long, allowed
// again at until (offsets from limT0).
func limLimited(at, wait, until time.Duration) limStep {
	return limStep{op: "allow", at: at, wait: wait, limited: true,
		reason: "limit: 5 restarts within 30m0s; giving up until " + limT0.Add(until).Format(time.RFC3339)}
}

// Long: a table of 8 cases, each a run before and after the restart.
func TestRestartHistoryAcrossRuns(t *testing.T) {
	fiveRestarts := limSteps(limRestartAt(0), limRestartAt(10*limSecond), limRestartAt(30*limSecond), limRestartAt(70*limSecond), limRestartAt(150*limSecond))
	tests := []struct {
		name string
		// before runs on the first limiter; its History at savedAt is
		// restored into a second one at restoredAt, which runs after.
		before              []limStep
		savedAt, restoredAt time.Duration
		after               []limStep
	}{
		{
			name:   "backoff carries over",
			before: limSteps(limRestartAt(0), limRestartAt(10*limSecond), limRestartAt(30*limSecond)),
			// Backoff 40 s after the restart at 30 s, whoever asks.
			savedAt: 31 * limSecond, restoredAt: 32 * limSecond,
			after: limSteps([]limStep{limRefused(32*limSecond, 38*limSecond), limRefused(69*limSecond, limSecond)},
				limRestartAt(70*limSecond), []limStep{limRefused(70*limSecond, 80*limSecond)}),
		},
		{
			name:    "burst carries over",
			before:  fiveRestarts,
			savedAt: 151 * limSecond, restoredAt: 152 * limSecond,
			after: []limStep{limLimited(10*limMinute, 20*limMinute, 30*limMinute),
				limLimited(30*limMinute-limSecond, limSecond, 30*limMinute), limAllow(30*limMinute + 10*limSecond)},
		},
		{
			name:    "no restarts: allowed at once",
			savedAt: limMinute, restoredAt: limMinute,
			after: limSteps(limRestartAt(limMinute), []limStep{limRefused(limMinute, 10*limSecond)}),
		},
		{
			name:    "a restart the window left is forgotten, its backoff is not",
			before:  limRestartAt(0),
			savedAt: 31 * limMinute, restoredAt: 2 * time.Hour,
			after: limSteps(limRestartAt(2*time.Hour), []limStep{limRefused(2*time.Hour, 20*limSecond)}),
		},
		{
			// A year back: the five restarts count as just made, so the
			// limit holds one window from the start, not a year.
			name:    "clock set back between runs",
			before:  fiveRestarts,
			savedAt: 151 * limSecond, restoredAt: -365 * 24 * time.Hour,
			after: []limStep{limLimited(-365*24*time.Hour, 30*limMinute, -365*24*time.Hour+30*limMinute),
				limAllow(-365*24*time.Hour + 30*limMinute)},
		},
		{
			name:    "clock set back an hour between runs, backoff only",
			before:  limSteps(limRestartAt(0), limRestartAt(10*limSecond)),
			savedAt: 11 * limSecond, restoredAt: -time.Hour,
			after: []limStep{limRefused(-time.Hour, 20*limSecond), limAllow(-time.Hour + 20*limSecond)},
		},
		{
			// The wall clock is all a new run has: a day forward is a day
			// passed, so the burst is forgotten; the backoff is not (no
			// health was seen meanwhile), so the next wait is the cap.
			name:    "clock set forward between runs",
			before:  fiveRestarts,
			savedAt: 151 * limSecond, restoredAt: 24 * time.Hour,
			after: limSteps(limRestartAt(24*time.Hour), []limStep{limRefused(24*time.Hour, 5*limMinute)}),
		},
		{
			name:   "health does not carry over",
			before: limSteps(limRestartAt(0), limRestartAt(10*limSecond), []limStep{{op: "healthy", at: 20 * limSecond}}),
			// 59 minutes of health seen before the restart, a minute after
			// it: no reset, the backoff is 40 s.
			savedAt: 59 * limMinute, restoredAt: 61 * limMinute,
			after: limSteps(limRestartAt(61*limMinute), []limStep{limRefused(61*limMinute, 40*limSecond)}),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			first := NewLimiter(DefaultPolicy())
			for i, s := range tc.before {
				runLimStep(t, first, i, s)
			}
			h := first.History(limT0.Add(tc.savedAt))
			second := NewLimiter(DefaultPolicy())
			second.Restore(h, limT0.Add(tc.restoredAt))
			for i, s := range tc.after {
				runLimStep(t, second, i, s)
			}
		})
	}
}

// TestRestartHistoryRestoreCleansUp: a history edited by hand or by an
// older build is taken in the safe reading: sorted, the backoff bounded
// by the policy, the latest restart at least the latest listed.
func TestRestartHistoryRestoreCleansUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		h     History
		steps []limStep
	}{
		{"backoff over the cap is capped", History{Restarts: []time.Time{limT0}, Last: limT0, Backoff: 24 * time.Hour},
			[]limStep{limRefused(7*limSecond, 5*limMinute-7*limSecond), limAllow(5 * limMinute)}},
		{"negative backoff is none", History{Restarts: []time.Time{limT0}, Last: limT0, Backoff: -time.Hour},
			[]limStep{limAllow(7 * limSecond)}},
		{"last missing: the latest restart", History{Restarts: []time.Time{limT0.Add(limSecond), limT0}, Backoff: 10 * limSecond},
			[]limStep{limRefused(7*limSecond, 4*limSecond)}},
		{"more than the burst: the latest count", History{Restarts: []time.Time{
			limT0, limT0.Add(limSecond), limT0.Add(2 * limSecond), limT0.Add(3 * limSecond), limT0.Add(4 * limSecond), limT0.Add(5 * limSecond), limT0.Add(6 * limSecond)}},
			[]limStep{limLimited(10*limSecond, 30*limMinute-8*limSecond, 30*limMinute+2*limSecond)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLimiter(DefaultPolicy())
			l.Restore(tc.h, limT0.Add(7*limSecond))
			for i, s := range tc.steps {
				runLimStep(t, l, i, s)
			}
		})
	}
}

// TestAssumeLimitReached: the stand-in for a history that cannot be read
// refuses as the burst limit, for one window, then allows a restart.
func TestAssumeLimitReached(t *testing.T) {
	t.Parallel()
	l := NewLimiter(DefaultPolicy())
	l.Record(limT0.Add(-time.Hour))
	l.AssumeLimitReached(limT0)
	if h := l.History(limT0); len(h.Restarts) != 5 || h.Backoff != DefaultMax {
		t.Fatalf("History after AssumeLimitReached = %+v, want 5 restarts and the longest backoff", h)
	}
	for i, s := range []limStep{limLimited(0, 30*limMinute, 30*limMinute),
		limLimited(29*limMinute, limMinute, 30*limMinute), limAllow(30 * limMinute)} {
		runLimStep(t, l, i, s)
	}
}

// TestRestartLimiterClockSetBackInRun: a clock set back while the watchdog
// runs does not hold restarts back until it has caught up.
func TestRestartLimiterClockSetBackInRun(t *testing.T) {
	t.Parallel()
	l := NewLimiter(DefaultPolicy())
	l.Record(limT0.Add(time.Hour))
	// Set back an hour: the restart counts as now; 10 s, not 1h10s.
	for i, s := range []limStep{limRefused(0, 10*limSecond), limAllow(10 * limSecond)} {
		runLimStep(t, l, i, s)
	}
}
