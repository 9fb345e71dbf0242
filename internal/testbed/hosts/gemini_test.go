package hosts

import (
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

func geminiRow(t *testing.T) hostRow {
	in := MustGemini(t)
	return hostRow{name: in.Name, version: in.Version, client: host.GeminiCLI().ClientName,
		start:     func(t *testing.T, r *Rig, url string, _ bool) { r.StartGemini(MustGemini(t), url) },
		setups:    []setup{{name: "direct", stuckOn: always}, {name: "proxied", proxy: true}},
		lostWords: true}
}

// The real Gemini CLI's row of the host table: straight to the server,
// the call after the loss and every later one fail with the SDK's lost
// session error (which the watchdog reads as such) and none runs (STUCK);
// through the watchdog's proxy every call works, once.
func TestGeminiRow(t *testing.T) {
	t.Parallel()
	measureRow(t, geminiRow(t))
}
