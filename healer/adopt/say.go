package adopt

import (
	"errors"
	"fmt"
	"io"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

// WriteText writes what adopt or release did to h's files, a line each,
// and, when a file changed, what h needs to read it.
func (r Result) WriteText(w io.Writer, h host.Profile) {
	esc := textsafe.Escape
	for _, l := range r.Lines {
		fmt.Fprintf(w, "%s: %s\n", esc(h.Name), esc(l))
	}
	switch {
	case !r.Changed || !r.RestartHost:
	case h.OneShot:
		fmt.Fprintf(w, "%s's next run reads its changed config (a run under way keeps the old one)\n", esc(h.Name))
	default:
		fmt.Fprintf(w, "restart %s so that it reads its changed config\n", esc(h.Name))
	}
}

// Refused reports whether err refuses what was asked (no such server,
// nothing adopted, a server that signs in with OAuth) rather than a
// failure: the command line's bad usage.
func Refused(err error) bool {
	return errors.Is(err, ErrNoServer) || errors.Is(err, ErrNotAdopted) || errors.Is(err, ErrOAuth)
}
