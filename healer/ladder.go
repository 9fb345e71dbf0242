package healer

import (
	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// PatchState is what the watchdog knows of the host client's fix.
type PatchState string

// Patch states (status document: host.patch).
const (
	PatchUnknown   PatchState = "unknown"   // no client module found, or an unknown version
	PatchUnpatched PatchState = "unpatched" // the known buggy client: a lost session never heals
	PatchApplied   PatchState = "applied"   // heals on the next call, no recovery trigger
	PatchTrigger   PatchState = "trigger"   // heals on the next call and on the watchdog's trigger
	// PatchUnsupported: a known client build that never reconnects; no
	// patch can help it.
	PatchUnsupported PatchState = "unsupported"
	// PatchNone: the host's client is not one the watchdog can patch.
	PatchNone PatchState = "none"
)

// Step is the heal ladder's next move for a lost session.
type Step struct {
	Strategy health.Strategy // "" when the step is to give up
	Advice   string          // for a give-up: the one thing the user should do
}

// LadderInput is what the ladder decides on.
type LadderInput struct {
	Patch       PatchState
	AutoRestart bool // config host.auto_restart
	UserAsked   bool // `watchdog heal` or the tray
	CanRestart  bool // a restart argv is configured
	// OneShot: the host runs one process per prompt; its next run opens
	// a new session, and there is nothing to restart.
	OneShot  bool
	HostName string
	// Adopt is the command that routes the host through the proxy
	// (host.Profile.AdoptCommand).
	Adopt string
}

// Next picks the best available step: the first entry of Strategies that
// applies ((a) the patched client's trigger, (b) the patched client's own
// reconnect, (d) a host restart when allowed), else (c) give up with the
// one thing to do.
func Next(in LadderInput) Step {
	if s, ok := first(in, func(Strategy) bool { return true }); ok {
		return Step{Strategy: s.Name}
	}
	if in.Patch == PatchUnsupported {
		return Step{Advice: "this client build never reconnects and no patch can change that: restart " + in.HostName +
			" to get a new session (`watchdog heal` does, once host.restart is configured)"}
	}
	return Step{Advice: giveUpAdvice(in)}
}

// PatchStateOf maps an inspected client onto what the heal ladder counts on.
func PatchStateOf(st clientpatch.Status) PatchState {
	switch {
	case st.State == clientpatch.StateApplied && st.Trigger:
		return PatchTrigger
	case st.State == clientpatch.StateApplied:
		return PatchApplied
	case st.State == clientpatch.StateUnpatched:
		return PatchUnpatched
	case st.State == clientpatch.StateUnsupported:
		return PatchUnsupported
	}
	return PatchUnknown
}

// giveUpAdvice is the one thing to do when no step applies: route the host
// through the proxy (or, for a host whose client takes the patch, patch
// it), then restart it, or restart it now when `watchdog heal` can.
func giveUpAdvice(in LadderInput) string {
	if in.OneShot {
		return in.HostName + " keeps the dead session for the rest of this run (its next run opens a new one): route it through the watchdog's proxy (`" +
			in.Adopt + "`), which its next run reads"
	}
	fix := "route " + in.HostName + " through the watchdog's proxy (`" + in.Adopt + "`) and restart it"
	if in.Patch != PatchNone {
		fix = "run `watchdog patch apply` and restart " + in.HostName + ", or " + fix
	}
	why := "the client is not patched, so it keeps the dead session: "
	if in.Patch == PatchNone {
		why = in.HostName + " keeps the dead session: "
	}
	if in.CanRestart {
		return why + fix + "; or restart " + in.HostName + " now (`watchdog heal`)"
	}
	return why + fix + " (no host.restart command is configured for `watchdog heal` to do it)"
}
