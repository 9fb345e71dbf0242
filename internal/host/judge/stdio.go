package judge

import (
	"path/filepath"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
)

// stdio judges a stdio entry: supervised when it runs under `watchdog
// stdio` (through a wrapper adopt wrote whose watchdog is there, or
// directly); stale when its wrapper is gone or names a watchdog that is;
// else what its host does when it dies (as measured).
func stdio(p host.Profile, s hostfile.Server, ws Wrappers) Verdict {
	mend := p.AdoptCommand() + " (or: watchdog hosts release " + host.ShellWord(p.Name) + " --server " + host.ShellWord(s.Name) + ")"
	if w, ok := ws.Scripts[s.Command]; ok {
		if !w.Runs {
			return Verdict{Protection: Stale, Fix: mend, Why: "its wrapper " + s.Command + " runs the watchdog at " + w.Watchdog +
				", which is gone: it runs " + w.Command + " straight, and nothing starts it again when it dies"}
		}
		return Verdict{Protection: Supervised,
			Why: "it runs " + w.Command + " under `watchdog stdio` (its wrapper " + s.Command + "), which starts it again when it dies"}
	}
	if ws.Dir != "" && strings.HasPrefix(s.Command, ws.Dir+string(filepath.Separator)) {
		return Verdict{Protection: Stale, Fix: mend,
			Why: "its wrapper " + s.Command + " is gone: the host cannot start the server at all"}
	}
	st := p.Behaviour.Stdio
	switch {
	case RunsWatchdogStdio(s):
		return Verdict{Protection: Supervised, Why: "it runs under `watchdog stdio`, which starts it again when it dies"}
	case s.Command == "":
		return Verdict{Protection: Exposed, Why: "the entry names no command the watchdog can run under `watchdog stdio`; if it dies, the host " + st.Words()}
	case st.On == host.Reinitializes:
		return Verdict{Protection: SelfHealing,
			Why: "when it dies, the host " + st.Words() + measuredOn(st) + " (under `watchdog stdio` that call works too: " + p.AdoptCommand() + ")"}
	case st.Heals():
		return Verdict{Protection: SelfHealing, Why: "when it dies, the host " + st.Words() + measuredOn(st)}
	}
	return Verdict{Protection: Exposed, Fix: adoptCommand(p, s), Why: "when it dies, the host " + st.Words() + measuredOn(st)}
}

func measuredOn(st host.StdioReaction) string {
	if st.Measured == "" {
		return ""
	}
	return " (measured on " + st.Measured + ")"
}

// RunsWatchdogStdio reports whether a stdio entry runs `watchdog stdio`
// itself: its command is a watchdog binary and its first argument
// "stdio". Such an entry is supervised as it is.
func RunsWatchdogStdio(s hostfile.Server) bool {
	base := strings.TrimSuffix(filepath.Base(s.Command), ".exe")
	return base == "watchdog" && len(s.Args) > 0 && s.Args[0] == "stdio"
}
