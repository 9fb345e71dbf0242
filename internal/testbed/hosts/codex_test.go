package hosts

import (
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

func codexRow(t *testing.T) hostRow {
	in := MustCodex(t)
	return hostRow{name: in.Name, version: in.Version, client: host.CodexCLI().ClientName,
		start:  func(t *testing.T, r *Rig, url string, _ bool) { r.StartCodex(MustCodex(t), url) },
		setups: []setup{{name: "direct", stuckOn: func(k ServerKind) bool { return k == TSQuirk }}, {name: "proxied", proxy: true}}}
}

// The real Codex CLI's row of the host table: straight to the server, its
// client (rmcp) opens a new session after a 404 and the calls work, but
// after the 400 quirk's answer every call hangs until its tool timeout
// (STUCK); through the watchdog's proxy every call works. Each runs once.
func TestCodexRow(t *testing.T) {
	t.Parallel()
	measureRow(t, codexRow(t))
}
