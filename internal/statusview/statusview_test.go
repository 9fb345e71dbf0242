package statusview_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/statusview"
)

// TestStatusSaysTheEra: the text status names a server's protocol era and
// says when its proxy bridges the eras, and which host sessions ride on it.
func TestStatusSaysTheEra(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	statusview.Write(&b, health.Status{Servers: []health.ServerStatus{{Name: "mem", Mode: health.Stateless, Era: health.EraModernOnly,
		State: health.Healthy, ProxyURL: "http://127.0.0.1:1/s/mcp", ProxyBridges: true,
		ProxySessions: []health.ProxySession{{ID: "ab12…9f3e", Client: "c", Bridged: true}}}}})
	for _, want := range []string{"healthy, stateless, modern-only, idle timeout", "bridges the eras", "bridged (the server keeps no session)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status text %q does not say %q", b.String(), want)
		}
	}
}

// TestStatusSaysSessionsOmitted: the text status says how many sessions
// the daemon left out of its list.
func TestStatusSaysSessionsOmitted(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	statusview.Write(&b, health.Status{Servers: []health.ServerStatus{{Name: "mem", SessionsOmitted: 7,
		Sessions: []health.SessionStatus{{ID: "ab12…9f3e", Client: "c", State: health.Healthy}}}}})
	if want := fmt.Sprintf("and 7 more session(s) not listed (at most %d", health.MaxStatusSessions); !strings.Contains(b.String(), want) {
		t.Errorf("status text %q does not say %q", b.String(), want)
	}
}

// TestWriteEscapesOutsideText: names and ids come from outside (a client
// picks its own name), so no escape sequence or line break of theirs
// reaches the terminal, and a long client name is cut with a mark.
func TestWriteEscapesOutsideText(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	statusview.Write(&b, health.Status{Host: health.HostStatus{Name: "h\x1b[2J"}, Servers: []health.ServerStatus{{Name: "mem\nfake line",
		Sessions: []health.SessionStatus{{ID: "ab12…9f3e", Client: "a-client-name-much-longer-than-twenty\x1b]0;x\a", State: health.Healthy}}}}})
	out := b.String()
	if strings.ContainsAny(out, "\x1b\a") || strings.Contains(out, "\nfake line") {
		t.Errorf("status text lets outside control text through:\n%q", out)
	}
	if !strings.Contains(out, "a-client-name-much-…") {
		t.Errorf("status text %q does not cut the long client name to 20 characters", out)
	}
}

// TestStatusListsStdioServers: a stdio server reads as its host has it,
// with its process, counts and how it last ended, escaped like the rest.
func TestStatusListsStdioServers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    health.ServerStatus
		want []string
	}{
		{"restarted once", health.ServerStatus{Name: "filesystem", Transport: health.TransportStdio, State: health.Healthy,
			Stdio: &health.StdioStatus{Host: "opencode", Supervisors: 1, PID: 4243, Starts: 2, Exits: 1, Restarts: 1, FailedCalls: 1,
				LastExit: "signal: killed", LastStderr: "fatal: out of memory\x1b[2J", LastExitTime: "2026-12-07T09:00:01Z"}},
			[]string{"stdio server filesystem (opencode): healthy, pid 4243, 2 starts, 1 exit, 1 restart, 1 failed call\n",
				"  last exit 2026-12-07T09:00:01Z: signal: killed; last on stderr: fatal: out of memory"}},
		{"given up, two host processes", health.ServerStatus{Name: "git", Transport: health.TransportStdio, State: health.Lost,
			Stdio: &health.StdioStatus{Host: "Cursor", Supervisors: 2, PID: 81, PIDs: []int{80, 81}, Starts: 7, Exits: 6}},
			[]string{"stdio server git (Cursor): gave up (kept crashing; not restarted), 2 supervisors, pids 80 81, 7 starts, 6 exits, 0 restarts, 0 failed calls"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			statusview.Write(&b, health.Status{Servers: []health.ServerStatus{tt.s}})
			out := b.String()
			for _, want := range tt.want {
				if !strings.Contains(out, want) {
					t.Errorf("status text %q does not say %q", out, want)
				}
			}
			if strings.ContainsAny(out, "\x1b") || strings.Contains(out, "idle timeout") {
				t.Errorf("status text %q: an escape, or an HTTP server's line", out)
			}
		})
	}
}
