package hostsview

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
	"github.com/mcpwatchdog/watchdog/internal/host/judge"
)

// TestEveryHostsStdioServers: on a machine with every host's file, each
// stdio server is exposed where its host (as measured, or not measured:
// taken as stuck) never starts it again, self-healing where it does, and
// never not-needed; the listing says what each host does when one dies.
func TestEveryHostsStdioServers(t *testing.T) {
	t.Parallel()
	found := find.Discover(context.Background(), find.Options{Home: everyHostHome(t), GOOS: "linux"})
	heals := map[string]bool{"Claude Code": true, "DSH": true, "Qwen Code": true}
	doc := Build(found, nil, nil)
	seen := 0
	for _, h := range doc.Hosts {
		for _, s := range h.Servers {
			if s.Transport != host.Stdio {
				continue
			}
			seen++
			want, fix := judge.Exposed, "watchdog hosts adopt "+host.ShellWord(h.Name)+" --server "+host.ShellWord(s.Name)
			if heals[h.Name] {
				want, fix = judge.SelfHealing, ""
			}
			if s.Protection != want || s.Fix != fix || s.Command == "" || s.URL != "" {
				t.Errorf("%s's %s: %s, fix %q; want %s, fix %q (%s)", h.Name, s.Name, s.Protection, s.Fix, want, fix, s.Why)
			}
		}
	}
	if seen < len(host.Profiles())-1 { // Goose's github entry and the others: one each at least
		t.Fatalf("only %d stdio servers listed", seen)
	}
	var text bytes.Buffer
	doc.WriteText(&text)
	for _, w := range []string{
		"when a stdio server dies, it never starts it again: every later call fails until the host restarts (measured on 0.169.0)",
		"when a stdio server dies, it starts it again at the next call, but fails that call (measured on 0.24.4)",
		"when a stdio server dies, it does what nobody measured yet (taken as stuck",
	} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("the listing does not say %q:\n%s", w, text.String())
		}
	}
}

// TestWrappedStdioServers: a stdio entry that runs through adopt's
// wrapper is supervised while the wrapper's watchdog is there, and stale,
// with the mend, when it is gone or the wrapper is.
func TestWrappedStdioServers(t *testing.T) {
	t.Parallel()
	const dir = "/state/wrappers"
	codex := host.CodexCLI()
	tests := []struct {
		name, command string
		want          judge.Protection
		fix           string
	}{
		{"its watchdog is there", dir + "/codex-cli.docs.1", judge.Supervised, ""},
		{"its watchdog is gone", dir + "/codex-cli.docs.2", judge.Stale, "watchdog hosts adopt 'Codex CLI' (or: watchdog hosts release 'Codex CLI' --server docs)"},
		{"the wrapper is gone", dir + "/codex-cli.docs.3", judge.Stale, "watchdog hosts adopt 'Codex CLI' (or: watchdog hosts release 'Codex CLI' --server docs)"},
		{"not adopted", "npx", judge.Exposed, "watchdog hosts adopt 'Codex CLI' --server docs"},
	}
	facts := judge.Facts{Wrappers: judge.Wrappers{Dir: dir, Scripts: map[string]judge.Wrapper{
		dir + "/codex-cli.docs.1": {Watchdog: "/usr/bin/watchdog", Runs: true, Command: "npx"},
		dir + "/codex-cli.docs.2": {Watchdog: "/gone/watchdog", Command: "npx"}}}}
	for _, tt := range tests {
		data := "[mcp_servers.docs]\ncommand = \"" + tt.command + "\"\nargs = [\"-y\", \"@upstash/context7-mcp\"]\n"
		servers, err := hostfile.Servers(hostfile.TOML, []byte(data), codex.Layout)
		if err != nil {
			t.Fatal(err)
		}
		fx := find.Found{Profile: codex, Files: []find.File{{Path: "/home/u/.codex/config.toml", Scope: find.Scope{Kind: host.UserScope},
			Format: hostfile.TOML, Servers: servers}}}
		doc := Build([]find.Found{fx}, map[string]judge.Facts{codex.Name: facts}, nil)
		s := doc.Hosts[0].Servers[0]
		if s.Protection != tt.want || s.Fix != tt.fix {
			t.Errorf("%s: %s, fix %q (%s); want %s, fix %q", tt.name, s.Protection, s.Fix, s.Why, tt.want, tt.fix)
		}
	}
}
