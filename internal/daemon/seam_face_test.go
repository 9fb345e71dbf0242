package daemon

import (
	"sync"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/stream"
)

// modeFace is a whole new face in one file, as a new product one would
// be: a name, and a take that notes the server_mode events the journal
// holds. Its registration is one line in a test's Options.faces, as a
// product face's is in facesOf.
type modeFace struct {
	mu    sync.Mutex
	modes []health.Event
}

func (*modeFace) Name() string { return "test mode face" }

func (f *modeFace) Take(p stream.Publication) {
	ev, ok := p.(stream.Journaled)
	if !ok || ev.Ev.Kind != health.EvServerMode {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.modes = append(f.modes, ev.Ev)
}

// timeoutSeen is the idle timeout a server_mode event of server told.
func (f *modeFace) timeoutSeen(server string) (seconds float64, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ev := range f.modes {
		if ev.Server != server {
			continue
		}
		switch n := ev.Extra["idle_timeout_seconds"].(type) {
		case int64:
			return float64(n), true
		case float64:
			return n, true
		}
	}
	return 0, false
}
