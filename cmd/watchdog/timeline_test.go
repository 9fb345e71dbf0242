package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// writeJournal writes events as the daemon would, in a private state dir.
func writeJournal(t *testing.T, evs ...health.Event) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	j, err := journal.Open(dir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, ev := range evs {
		if err := j.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestTimelineCommand(t *testing.T) {
	t.Parallel()
	now := time.Now()
	id := "0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b"
	state := writeJournal(t,
		health.Event{Time: now.Add(-48 * time.Hour), Kind: health.EvSessionNew, Server: "mem", Session: "old-session-id-0000", Facts: health.Opened{Client: "dsh"}},
		health.Event{Time: now.Add(-time.Minute), Kind: health.EvSessionNew, Server: "mem", Session: id, Facts: health.Opened{Client: "dsh"}},
		health.Event{Time: now.Add(-30 * time.Second), Kind: health.EvSessionLost, Server: "mem", Session: id, Facts: health.Loss{Incident: true},
			Detail: "the host's session on mem is gone"})

	code, out, errOut := runWatchdog(t, "timeline", "--state-dir", state)
	want := filepath.Join(state, "timeline.html")
	if code != exitOK || strings.TrimSpace(out) != want {
		t.Fatalf("exit %d, printed %q (%s); want the page's path %s", code, out, errOut, want)
	}
	page, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	if n := strings.Count(html, `data-session="`); n != 2 {
		t.Errorf("%d session bars, want both: without --since the page spans the journal's first to last event", n)
	}
	if !strings.Contains(html, `id="incidents">1<`) || strings.Contains(html, id) {
		t.Errorf("the page does not show one incident with the id masked")
	}

	out2 := filepath.Join(t.TempDir(), "day.html")
	if code, _, errOut := runWatchdog(t, "timeline", "--state-dir", state, "--since", "24h", "--out", out2); code != exitOK {
		t.Fatalf("--out: exit %d: %s", code, errOut)
	}
	if day, _ := os.ReadFile(out2); strings.Count(string(day), `data-session="`) != 1 {
		t.Errorf("--since 24h does not show only the last day's session")
	}
}

func TestTimelineBadInput(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"since not positive", []string{"--since", "0s", "--state-dir", empty}, exitUsage, "positive duration"},
		{"since not a duration", []string{"--since", "a week", "--state-dir", empty}, exitUsage, "invalid value"},
		{"no journal", []string{"--state-dir", empty}, exitFailed, "has not run with this state directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runWatchdog(t, append([]string{"timeline"}, tt.args...)...)
			if code != tt.code || !strings.Contains(errOut, tt.says) || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d saying %q", code, out, errOut, tt.code, tt.says)
			}
			if _, err := os.Stat(filepath.Join(empty, "timeline.html")); err == nil {
				t.Fatal("a page was written for bad input")
			}
		})
	}
}
