package judge

import (
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
)

// Long: a table of stdio entries, one per protection and what decides it.
// TestProtectStdio: a stdio server is exposed where its host (as
// measured) never starts it again, self-healing where it does, supervised
// under `watchdog stdio`, and stale where its wrapper is gone or names a
// watchdog that is; never not-needed.
func TestProtectStdio(t *testing.T) {
	t.Parallel()
	const dir = "/home/u/.local/state/mcp-watchdog/wrappers"
	npx := hostfile.Server{Name: "mem", Transport: host.Stdio, Command: "npx", Args: []string{"-y", "mem-mcp"}}
	wrapped := func(w string) hostfile.Server { s := npx; s.Command = dir + "/" + w; return s }
	ws := Wrappers{Dir: dir, Scripts: map[string]Wrapper{
		dir + "/ok":   {Watchdog: "/usr/bin/watchdog", Runs: true, Command: "npx"},
		dir + "/gone": {Watchdog: "/opt/old/watchdog", Command: "npx"}}}
	direct := hostfile.Server{Name: "mem", Transport: host.Stdio, Command: "/usr/bin/watchdog", Args: []string{"stdio", "--", "npx"}}
	notDirect := direct
	notDirect.Args = []string{"--stdio"}
	const release = "watchdog hosts adopt 'Codex CLI' (or: watchdog hosts release 'Codex CLI' --server mem)"
	tests := []struct {
		name string
		p    host.Profile
		s    hostfile.Server
		want Protection
		fix  string
		why  string
	}{
		{"Codex CLI: measured stuck", host.CodexCLI(), npx, Exposed, "watchdog hosts adopt 'Codex CLI' --server mem", "never starts it again"},
		{"Gemini CLI: measured stuck", host.GeminiCLI(), npx, Exposed, "watchdog hosts adopt 'Gemini CLI' --server mem", "measured on 0.61.0"},
		{"opencode: measured stuck", host.Opencode(), npx, Exposed, "watchdog hosts adopt opencode --server mem", "never starts it again"},
		{"Copilot CLI", host.CopilotCLI(), npx, Exposed, "watchdog hosts adopt 'Copilot CLI' --server mem", "never starts it again"},
		{"Cline", host.Cline(), npx, Exposed, "watchdog hosts adopt Cline --server mem", "never starts it again"},
		{"Cursor: not measured", host.Cursor(), npx, Exposed, "watchdog hosts adopt Cursor --server mem", "taken as stuck"},
		{"Qwen Code fails the call that met the death", host.QwenCode(), npx, SelfHealing, "", "fails that call"},
		{"DSH restarts it", host.DSH(), npx, SelfHealing, "", "the next call works"},
		{"Claude Code restarts it", host.ClaudeCode(), npx, SelfHealing, "", "measured on 2.1.332"},
		{"a wrapper whose watchdog is there", host.CodexCLI(), wrapped("ok"), Supervised, "", "runs npx under `watchdog stdio`"},
		{"a wrapper whose watchdog is gone", host.CodexCLI(), wrapped("gone"), Stale, release, "/opt/old/watchdog, which is gone"},
		{"a wrapper that is gone", host.CodexCLI(), wrapped("missing"), Stale, release, "cannot start the server at all"},
		{"watchdog stdio itself", host.CodexCLI(), direct, Supervised, "", "under `watchdog stdio`"},
		{"a program named watchdog, not its stdio", host.CodexCLI(), notDirect, Exposed, "watchdog hosts adopt 'Codex CLI' --server mem", "never starts"},
		{"no command", host.CodexCLI(), hostfile.Server{Name: "py", Transport: host.Stdio}, Exposed, "", "names no command"},
	}
	for _, tt := range tests {
		v := Protect(tt.p, tt.s, Facts{Wrappers: ws})
		if v.Protection != tt.want || v.Fix != tt.fix || !strings.Contains(v.Why, tt.why) {
			t.Errorf("%s: %+v; want %s, fix %q, saying %q", tt.name, v, tt.want, tt.fix, tt.why)
		}
		if v.Protection == NotNeeded {
			t.Errorf("%s: a stdio server is never not-needed", tt.name)
		}
	}
}
