package hosts

import (
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

func claudeRow(t *testing.T) hostRow {
	in := MustClaude(t)
	return hostRow{name: in.Name, version: in.Version, client: host.ClaudeCode().ClientName,
		start:  func(t *testing.T, r *Rig, url string, _ bool) { r.StartClaude(MustClaude(t), url) },
		setups: []setup{{name: "direct"}, {name: "proxied", proxy: true}}}
}

// The real Claude Code CLI's row of the host table: straight to the
// server, the call after the loss meets the dead session (404, or the
// quirk's 400), Claude Code opens a new session and retries the call, so
// the model sees the echo; every call works, once, on all three servers.
// Through the watchdog's proxy every call works too.
func TestClaudeRow(t *testing.T) {
	t.Parallel()
	measureRow(t, claudeRow(t))
}
