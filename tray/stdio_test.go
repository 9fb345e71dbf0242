package tray

import (
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

func stdioSrv(name string, st health.State, s health.StdioStatus) health.ServerStatus {
	return health.ServerStatus{Name: name, Transport: health.TransportStdio, State: st, Stdio: &s}
}

// The menu shows each stdio server as its host has it, with what its
// supervisor said and nothing to click; the tooltip and icon show its
// trouble like any server's.
func TestStdioServersInTheMenu(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		s        health.ServerStatus
		line     string
		children []string
		trouble  string
		icon     string
	}{
		{"restarted", stdioSrv("filesystem", health.Healthy, health.StdioStatus{Host: "opencode", PID: 4243, Starts: 2, Exits: 1, Restarts: 1,
			FailedCalls: 1, LastExit: "signal: killed", LastStderr: "fatal: oom"}),
			"opencode: filesystem (stdio): healthy · restarted 1×",
			[]string{"pid 4243 · 2 starts, 1 exits, 1 failed calls", "Last exit: signal: killed", "Last on stderr: fatal: oom"}, "", "healthy"},
		{"gave up", stdioSrv("git", health.Lost, health.StdioStatus{Host: "Cursor", Starts: 5, Exits: 5, Restarts: 4}),
			"Cursor: git (stdio): keeps crashing, not restarted · restarted 4×",
			[]string{"5 starts, 5 exits, 0 failed calls"}, "Cursor: git keeps crashing, not restarted", "lost"},
		{"hung", stdioSrv("fetch", health.Down, health.StdioStatus{Host: "opencode", PID: 9}),
			"opencode: fetch (stdio): not answering", []string{"pid 9 · 0 starts, 0 exits, 0 failed calls"}, "opencode: fetch not answering", "down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := View{Now: now, Status: health.Status{Servers: []health.ServerStatus{tt.s}}}
			it := menuItems(v)[0]
			if it.Title != tt.line || it.Cmd != nil {
				t.Errorf("menu line %q (cmd %+v), want %q and no command", it.Title, it.Cmd, tt.line)
			}
			if len(it.Children) != len(tt.children) {
				t.Fatalf("children %+v, want %q", it.Children, tt.children)
			}
			for i, c := range it.Children {
				if c.Title != tt.children[i] || c.Cmd != nil || !c.Disabled {
					t.Errorf("child %d: %+v, want the information line %q", i, c, tt.children[i])
				}
			}
			if got := troublePhrase(tt.s); got != tt.trouble {
				t.Errorf("trouble %q, want %q", got, tt.trouble)
			}
			if got := IconState(v); got != tt.icon {
				t.Errorf("icon %q, want %q", got, tt.icon)
			}
		})
	}
}
