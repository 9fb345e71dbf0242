package daemon

import (
	"context"
	"os"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// patchEvery paces the daemon's look at the client module: a reinstall of
// the host silently removes the patch, and the user must hear of it.
const patchEvery = time.Minute

// patchSource looks at the main host's client module now and every
// patchEvery, off the loop (discovery may run `npm root -g`), and hands
// each look to the loop.
type patchSource struct{ h *hostWatch }

func (s *patchSource) Name() string { return "client patch" }

func (s *patchSource) Run(ctx context.Context, emit emitFunc) error {
	t := time.NewTicker(patchEvery)
	defer t.Stop()
	home, _ := os.UserHomeDir()
	h := s.h
	prof := h.prof
	npmRoot := clientpatch.NpmRoot() // remembered across looks: running npm is a third of a second
	var st clientpatch.Look
	for {
		// Discovery may run `npm root -g`: only until a module is found.
		if st.Module == "" || st.Status.State == clientpatch.StateNotFound {
			st = clientpatch.LookFor(clientpatch.FindOptions{Host: prof, ConfigModule: h.cfg.ClientModule, Home: home, NpmRoot: npmRoot})
		} else {
			st = clientpatch.LookAt(st.Module, clientpatch.InspectOptions{Host: prof, Home: home})
		}
		if !emit(clientIn{st}) {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// noteClient records a look at the client module, journaling a patch that
// appeared or went away (a reinstall of the host removes it).
func (d *daemon) noteClient(st clientpatch.Look) {
	prev, seen := d.client.look, d.client.seen
	d.client.look, d.client.seen = st, true
	wasApplied, isApplied := prev.Status.State == clientpatch.StateApplied, st.Status.State == clientpatch.StateApplied
	name := d.mainHost().cfg.DisplayName()
	var ev *health.Event
	switch {
	case isApplied && (!seen || !wasApplied):
		ev = &health.Event{Kind: health.EvPatchApplied, Detail: "the client patch is in place in " + st.Module}
	case !isApplied && seen && wasApplied:
		ev = &health.Event{Kind: health.EvPatchReverted, Detail: "the client patch is gone from " + st.Module +
			" (was " + name + " reinstalled or updated?): run `watchdog patch apply`, then restart " + name}
	case !isApplied && !seen && st.Status.State == clientpatch.StateUnpatched:
		ev = &health.Event{Kind: health.EvWarning, Detail: "the client " + st.Module +
			" is unpatched: a lost session does not heal by itself; run `watchdog patch apply`, then restart " + name}
	case !seen && st.Status.State == clientpatch.StateUnsupported:
		ev = &health.Event{Kind: health.EvWarning, Detail: "the client " + st.Module + ": " + st.Status.Advice}
	}
	if ev != nil {
		ev.Time = d.now()
		ev.Extra = map[string]any{"patch": string(st.Status.State)}
		d.emit([]health.Event{*ev})
	}
}
