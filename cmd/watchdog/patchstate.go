package main

import (
	"context"
	"os"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// patchEvery paces the daemon's look at the client module: a reinstall of
// DSH silently removes the patch, and the user must hear of it.
const patchEvery = time.Minute

// watchPatch looks at the client module now and every patchEvery, off the
// loop (discovery may run `npm root -g`), and hands each look to the loop.
func (d *daemon) watchPatch(ctx context.Context) {
	t := time.NewTicker(patchEvery)
	defer t.Stop()
	home, _ := os.UserHomeDir()
	var st clientPatch
	for {
		// Discovery may run `npm root -g`: only until a module is found.
		if st.module == "" || st.status.State == clientpatch.StateNotFound {
			st = inspectClient(d.cfg)
		} else {
			st = inspectModule(st.module, home)
		}
		if !d.send(ctx, item{client: &st}) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// inspectModule looks again at a module found before.
func inspectModule(module, home string) clientPatch {
	st, err := clientpatch.Inspect(module, home)
	cp := clientPatch{module: module, state: string(st.State), detail: patchDetail(st), advice: st.Advice, status: st}
	if err != nil {
		cp.detail = err.Error()
	}
	return cp
}

// noteClient records a look at the client module, journaling a patch that
// appeared or went away (a DSH reinstall removes it).
func (d *daemon) noteClient(st clientPatch) {
	prev, seen := d.client, d.clientSeen
	d.client, d.clientSeen = st, true
	wasApplied, isApplied := prev.status.State == clientpatch.StateApplied, st.status.State == clientpatch.StateApplied
	var ev *health.Event
	switch {
	case isApplied && (!seen || !wasApplied):
		ev = &health.Event{Kind: health.EvPatchApplied, Detail: "the client patch is in place in " + st.module}
	case !isApplied && seen && wasApplied:
		ev = &health.Event{Kind: health.EvPatchReverted, Detail: "the client patch is gone from " + st.module +
			" (was DSH reinstalled or updated?): run `watchdog patch apply`, then restart DSH"}
	case !isApplied && !seen && st.status.State == clientpatch.StateUnpatched:
		ev = &health.Event{Kind: health.EvWarning, Detail: "the client " + st.module +
			" is unpatched: a lost session does not heal by itself; run `watchdog patch apply`, then restart DSH"}
	}
	if ev != nil {
		ev.Time = d.now()
		ev.Fields = map[string]any{"patch": st.state}
		d.emit([]health.Event{*ev})
	}
}
