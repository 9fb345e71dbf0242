package daemon

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/restart"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// newTestHealing keeps the limits in dir. It has no boot clock, so the
// wall times a test gives are all there is; TestRestartHistoryAgeByBootClock
// gives it one.
func newTestHealing(dir string) *healing {
	return &healing{limiter: restart.NewLimiter(restart.DefaultPolicy()),
		limitsPath: filepath.Join(dir, "restarts.json"), bootClock: func() (restart.BootMark, error) { return restart.BootMark{}, errNoBootClock }}
}

var errNoBootClock = errors.New("no boot clock in this test")

// restartsJSON is a restarts.json with restarts at the given times.
func restartsJSON(backoff time.Duration, restarts ...time.Time) string {
	var list []string
	for _, t := range restarts {
		list = append(list, `"`+t.UTC().Format(time.RFC3339Nano)+`"`)
	}
	last, saved := time.Time{}, time.Now() // saved with the latest restart, or now
	if len(restarts) > 0 {
		last = restarts[len(restarts)-1]
		saved = last
	}
	return fmt.Sprintf(`{"version":1,"saved":%q,"restarts":[%s],"last":%q,"backoff_ms":%d}`,
		saved.UTC().Format(time.RFC3339Nano), strings.Join(list, ","), last.UTC().Format(time.RFC3339Nano), backoff.Milliseconds())
}

// TestRestartHistoryFileRoundTrip: what one run saves, the next reads as
// the same history, in a private file.
func TestRestartHistoryFileRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now()
	first := newTestHealing(dir)
	for _, at := range []time.Duration{-3 * time.Minute, -2 * time.Minute, -time.Minute} {
		first.limiter.Record(now.Add(at))
	}
	if err := first.saveLimits(now); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(first.limitsPath)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v, mode %v; want 0600", first.limitsPath, err, fi.Mode())
	}
	second := newTestHealing(dir)
	if w := second.restoreLimits(now); w != nil {
		t.Fatalf("a good history gave warnings: %v", w)
	}
	a, b := first.limiter.History(now), second.limiter.History(now)
	if len(a.Restarts) != 3 || len(b.Restarts) != 3 || !a.Last.Equal(b.Last) || a.Backoff != b.Backoff {
		t.Fatalf("saved %+v, read back %+v", a, b)
	}
	for i := range a.Restarts {
		if !a.Restarts[i].Equal(b.Restarts[i]) {
			t.Fatalf("restart %d saved %v, read back %v", i, a.Restarts[i], b.Restarts[i])
		}
	}
	if d1, d2 := first.limiter.Decide(now), second.limiter.Decide(now); d1 != d2 {
		t.Fatalf("the runs disagree: %+v before, %+v after", d1, d2)
	}
}

// Long: a table of 10 files a start may find, each checked on three counts.
func TestRestartHistoryFileAtStart(t *testing.T) {
	now := time.Now()
	window := restart.DefaultWindow
	plant := func(body string) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	five := []time.Time{now.Add(-5 * time.Minute), now.Add(-4 * time.Minute), now.Add(-3 * time.Minute), now.Add(-2 * time.Minute), now.Add(-time.Minute)}
	var future []time.Time // five the same, saved a day ahead of now
	for _, t := range five {
		future = append(future, t.Add(24*time.Hour))
	}
	tests := []struct {
		name  string
		plant func(t *testing.T, path string)
		// limited: the first restart is refused by the burst limit, for
		// at most wait; warn: a warning naming the file is returned.
		limited bool
		wait    time.Duration
		warn    bool
		kept    bool // the unreadable file was kept as restarts.json.bad
	}{
		{name: "missing: the first run", plant: func(*testing.T, string) {}},
		{name: "no restarts", plant: plant(restartsJSON(0))},
		{name: "burst used up a minute ago", plant: plant(restartsJSON(5*time.Minute, five...)), limited: true, wait: window - 5*time.Minute},
		// Dated after now: the save counts as just made, the restarts
		// keep their spacing before it.
		{name: "clock set back a day since", plant: plant(restartsJSON(5*time.Minute, future...)), limited: true, wait: window - 4*time.Minute},
		{name: "not JSON", plant: plant(`{"version":1,"restarts":[`), limited: true, wait: window, warn: true, kept: true},
		{name: "empty", plant: plant(""), limited: true, wait: window, warn: true, kept: true},
		{name: "unknown field", plant: plant(`{"version":1,"restarts":[],"count":0}`), limited: true, wait: window, warn: true, kept: true},
		{name: "another version", plant: plant(`{"version":2,"restarts":[]}`), limited: true, wait: window, warn: true, kept: true},
		{name: "a symbolic link", plant: func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.WriteFile(target, []byte(restartsJSON(0)), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}, limited: true, wait: window, warn: true, kept: true},
		{name: "a directory", plant: func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, limited: true, wait: window, warn: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			h := newTestHealing(dir)
			tc.plant(t, h.limitsPath)
			warnings := h.restoreLimits(now)
			checkHeld(t, h, now, tc.limited, tc.wait)
			checkWarned(t, warnings, h.limitsPath, tc.warn)
			_, err := os.Lstat(h.limitsPath + restart.BadSuffix)
			if kept := err == nil; kept != tc.kept {
				t.Fatalf("kept a copy: %v (%v), want %v", kept, err, tc.kept)
			}
			if tc.kept { // the held limit replaced it: the next start holds the same window
				next := newTestHealing(dir)
				if w := next.restoreLimits(now.Add(time.Minute)); w != nil {
					t.Fatalf("the next start warned again: %v", w)
				}
				checkHeld(t, next, now.Add(time.Minute), true, window-time.Minute)
			}
		})
	}
}

func checkHeld(t *testing.T, h *healing, now time.Time, limited bool, wait time.Duration) {
	t.Helper()
	d := h.limiter.Decide(now)
	if limited != d.Limited || (limited && (d.OK || d.Wait > wait || d.Wait < wait-time.Second)) {
		t.Fatalf("Decide = %+v; want limited %v for %v", d, limited, wait)
	}
	if !limited && !d.OK {
		t.Fatalf("Decide = %+v; want a restart allowed", d)
	}
}

func checkWarned(t *testing.T, warnings []health.Event, path string, want bool) {
	t.Helper()
	if !want {
		if len(warnings) != 0 {
			t.Fatalf("warnings %v, want none", warnings)
		}
		return
	}
	if len(warnings) != 1 || warnings[0].Kind != "warning" || !strings.Contains(warnings[0].Detail, path) ||
		!strings.Contains(warnings[0].Detail, "delete") || warnings[0].Extra["file"] != path {
		t.Fatalf("warnings %+v; want one warning naming %s and what to do", warnings, path)
	}
}

// TestRestartHistorySaveFailureNamesTheFile: a failed save is an error
// naming the file (tryRestart then refuses the restart).
func TestRestartHistorySaveFailureNamesTheFile(t *testing.T) {
	t.Parallel()
	h := newTestHealing(filepath.Join(t.TempDir(), "gone")) // its directory does not exist
	h.limiter.Record(time.Now())
	err := h.saveLimits(time.Now())
	if err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "restarts.json") {
		t.Fatalf("saveLimits = %v; want an error naming restarts.json", err)
	}
}

// TestRestartHistoryAgeByBootClock: saved and read on one boot, the file's
// age comes from the boot clock, so the wall clock set forward a day or
// back a year between the runs changes nothing; on another boot, or with
// no boot clock, the wall clock is all there is.
func TestRestartHistoryAgeByBootClock(t *testing.T) {
	t.Parallel()
	saved := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	atSave := restart.BootMark{ID: "boot-a", SinceBoot: 10 * time.Hour}
	minuteOn := restart.BootMark{ID: "boot-a", SinceBoot: 10*time.Hour + time.Minute}
	noClock := errors.New("no boot clock")
	window := restart.DefaultWindow
	tests := []struct {
		name    string
		wall    time.Time // the wall clock at the second start
		boot    restart.BootMark
		bootErr error
		limited bool
		wait    time.Duration
	}{
		{"same boot, wall a day forward", saved.Add(24 * time.Hour), minuteOn, nil, true, window - 6*time.Minute},
		{"same boot, wall a year back", saved.AddDate(-1, 0, 0), minuteOn, nil, true, window - 6*time.Minute},
		{"same boot, wall right", saved.Add(time.Minute), minuteOn, nil, true, window - 6*time.Minute},
		{"another boot, wall a day forward", saved.Add(24 * time.Hour), restart.BootMark{ID: "boot-b", SinceBoot: time.Minute}, nil, false, 0},
		{"another boot, wall a minute on", saved.Add(time.Minute), restart.BootMark{ID: "boot-b", SinceBoot: time.Minute}, nil, true, window - 6*time.Minute},
		{"no boot clock now, wall a day forward", saved.Add(24 * time.Hour), restart.BootMark{}, noClock, false, 0},
		{"boot clock behind the save's: taken as another boot", saved.Add(24 * time.Hour), restart.BootMark{ID: "boot-a", SinceBoot: time.Hour}, nil, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			first := newTestHealing(dir)
			first.bootClock = func() (restart.BootMark, error) { return atSave, nil }
			for i := range 5 { // the burst, a minute apart, the last 1 min before the save
				first.limiter.Record(saved.Add(time.Duration(i-5) * time.Minute))
			}
			if err := first.saveLimits(saved); err != nil {
				t.Fatal(err)
			}
			second := newTestHealing(dir)
			second.bootClock = func() (restart.BootMark, error) { return tc.boot, tc.bootErr }
			if w := second.restoreLimits(tc.wall); w != nil {
				t.Fatalf("warnings: %v", w)
			}
			checkHeld(t, second, tc.wall, tc.limited, tc.wait)
		})
	}
}
