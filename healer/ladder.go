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
	HostName    string
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
	advice := "the client is not patched, so it keeps the dead session: run `watchdog patch apply` and restart " + in.HostName + ", or restart " + in.HostName + " now (`watchdog heal`)"
	if !in.CanRestart {
		advice = "the client is not patched, so it keeps the dead session: run `watchdog patch apply` and restart " + in.HostName + " (no host.restart command is configured for `watchdog heal` to do it)"
	}
	return Step{Advice: advice}
}

// AfterFailure is the step after strategy failed: the first other fallback
// (a restart) that applies, else give up.
func AfterFailure(failed health.Strategy, in LadderInput) Step {
	if s, ok := first(in, func(s Strategy) bool { return s.Fallback && s.Name != failed }); ok {
		return Step{Strategy: s.Name}
	}
	return Step{Advice: "restart " + in.HostName + " to reconnect its sessions"}
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
