package daemon

import (
	"log/slog"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/monitor/follow"
)

// A server's end line reaches the model with the reason it gave, in the
// model's words: the two packages name the reasons alike.
func TestServerEndLineBecomesASignal(t *testing.T) {
	t.Parallel()
	r := &lineReader{d: &daemon{cfg: config.Config{Servers: []config.Server{{Name: "mem"}}}, log: slog.New(slog.DiscardHandler)}}
	const id = "6f1c2b3a-9d4e-4f5a-8b6c-7d8e9f0a1b2c"
	for reason, want := range map[string]health.EndReason{"idle_timeout": health.EndIdle, "deleted": health.EndDeleted, "shutdown": health.EndShutdown} {
		ln := follow.Line{Tag: "mem", Text: []byte("INFO MCP session closed session_id=" + id + " reason=" + reason)}
		o, ok := r.signal(ln)
		sig, closed := o.(health.SessionClosed)
		if !ok || !closed || sig.Reason != want || sig.Session != id || sig.Server != "mem" {
			t.Errorf("reason=%s: %+v %v, want a SessionClosed with %q", reason, o, ok, want)
		}
	}
}
