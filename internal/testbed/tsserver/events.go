package tsserver

import "github.com/mcpwatchdog/watchdog/internal/demoserver/truth"

// Event is one session line of the server's stdout (truth.Parse), stamped
// with the wall time the Go side read it.
type Event = truth.Event
