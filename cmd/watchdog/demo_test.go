package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// TestDemoFast runs `watchdog demo --fast` as a user would and checks its
// story against the daemon's journal: every act narrated, the summary all
// ok, and no full session id on the way out.
func TestDemoFast(t *testing.T) {
	t.Parallel()
	code, out, errOut := runWatchdog(t, "demo", "--fast", "--keep")
	dir := demoDir(t, out)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if code != 0 {
		t.Fatalf("demo --fast exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"act 1: keep-warm holds the session across three idle timeouts",
		"act 2: keep-warm paused", "notification:      nowledge-mem-demo: session lost",
		"notification:      nowledge-mem-demo recovered", "the next tool call succeeds",
		"act 3: the server restarts and forgets every session",
		"act 4: an UNPATCHED client through the watchdog's proxy", "the call after the restart succeeds too",
		"act 5: the server restarts speaking ONLY the 2026-07-28 protocol", "a new legacy client is refused",
		"two calls after the restart succeed", "the watchdog's proxy bridges its legacy hosts",
		"every act did what it narrated",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("narration lacks %q:\n%s", want, out)
		}
	}
	for _, row := range []string{`(?m)^act\s+what\s+result\s+evidence$`, `(?m)^1\s.*\sok\s`, `(?m)^2\s.*\sok\s`, `(?m)^3\s.*\sok\s`, `(?m)^4\s.*\sok\s`, `(?m)^5\s.*\sok\s`} {
		if !regexp.MustCompile(row).MatchString(out) {
			t.Errorf("summary lacks row %s:\n%s", row, out)
		}
	}
	state := filepath.Join(dir, "state")
	checkDemoTimeline(t, out, state)
	if n := len(daemontest.Journal(t, state, "keep_warm")); n < 3 {
		t.Errorf("%d keep_warm events, want at least 3 (one per idle timeout of act 1)", n)
	}
	incidents := map[string]int{}
	for _, ev := range daemontest.Journal(t, state, "session_lost") {
		if ev["incident"] == true {
			incidents[ev.Str("source")]++
		}
	}
	if incidents["proxy"] != 2 || len(incidents) != 2 {
		t.Errorf("incidents (session_lost) by source %v, want 2 seen by the proxy (act 4) and 2 of one other source (acts 2 and 3)", incidents)
	}
	if evs := daemontest.Journal(t, state, "heal_started"); len(evs) != 2 || evs[0].Str("strategy") != "client_recovery" || evs[1].Str("strategy") != "client_recovery" {
		t.Errorf("heal_started events %v, want two by client_recovery (acts 2 and 3; none for the proxy's)", evs)
	}
	byStrategy := map[string]int{}
	for _, ev := range daemontest.Journal(t, state, "recovered") {
		byStrategy[ev.Str("strategy")]++
	}
	if byStrategy["client_recovery"] != 2 || byStrategy["proxy"] != 2 || len(byStrategy) != 2 {
		t.Errorf("recovered events by strategy %v, want 2 by client_recovery (acts 2, 3) and 2 by proxy (act 4)", byStrategy)
	}
	checkDemoBridge(t, state)
	checkDemoIDs(t, dir, out+errOut)
}

// checkDemoIDs: the server issued the sessions the acts open, and none of
// their full ids was printed.
func checkDemoIDs(t *testing.T, dir, printed string) {
	t.Helper()
	ids := serverSessionIDs(t, filepath.Join(dir, "server", "server.log"))
	if len(ids) != 7 {
		t.Errorf("the server issued %d sessions, want 7 (one per act of the first three, three in act 4, one in act 5 before it went modern-only)", len(ids))
	}
	for _, id := range ids {
		if strings.Contains(printed, id) {
			t.Errorf("the full session id %s… was printed", id[:4])
		}
	}
}

// checkDemoBridge: act 5's journal says once that the proxy bridges the
// server.
func checkDemoBridge(t *testing.T, state string) {
	t.Helper()
	var bridged int
	for _, ev := range daemontest.Journal(t, state, "server_mode") {
		if ev["bridged"] == true {
			bridged++
		}
	}
	if bridged != 1 {
		t.Errorf("the journal said %d times that the proxy bridges the server, want once (act 5)", bridged)
	}
}

// demoDir is the demo's temp directory, from the journal line it prints.
func demoDir(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s+journal (\S+)/state/events\.jsonl$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the demo did not say where its journal is:\n%s", out)
	}
	return m[1]
}

// serverSessionIDs are the full ids in the demo server's own log.
func serverSessionIDs(t *testing.T, logPath string) []string {
	t.Helper()
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var ids []string
	for _, m := range regexp.MustCompile(`MCP session created session_id=(\S+)`).FindAllStringSubmatch(string(b), -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			ids = append(ids, m[1])
		}
	}
	return ids
}

// The demo takes no arguments and none of the daemon's config flags.
func TestDemoUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"demo", "extra"}, "takes no arguments"},
		{[]string{"demo", "--config", "x.toml"}, "flag provided but not defined: -config"},
	}
	for _, tt := range tests {
		code, out, errOut := runWatchdog(t, tt.args...)
		if code != exitUsage || !strings.Contains(errOut, tt.want) || out != "" {
			t.Errorf("watchdog %v: exit %d, stdout %q, stderr %q; want exit 2 saying %q", tt.args, code, out, errOut, tt.want)
		}
	}
}

// checkDemoTimeline: the kept run names its timeline command, and the page
// it makes spans the run's own minute, not the last day.
func checkDemoTimeline(t *testing.T, out, state string) {
	t.Helper()
	if want := "its timeline: watchdog timeline --state-dir " + state + " --open"; !strings.Contains(out, want) {
		t.Errorf("the kept demo does not say %q:\n%s", want, out)
	}
	code, path, errOut := runWatchdog(t, "timeline", "--state-dir", state)
	if code != exitOK {
		t.Fatalf("timeline: exit %d: %s", code, errOut)
	}
	page, err := os.ReadFile(strings.TrimSpace(path))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`\(1m0s: the journal(&#39;|')s first to last event\)`).Match(page) {
		t.Errorf("the demo's timeline does not span its own minute:\n%.600s", page)
	}
}
