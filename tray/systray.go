//go:build cgo || !darwin

package tray

import (
	"context"
	"runtime"

	"fyne.io/systray"

	"github.com/mcpwatchdog/watchdog/assets"
)

// Run shows the tray until ctx ends. It blocks; on macOS call it from the
// main goroutine. Without a session bus (Linux) it runs headless: it logs
// so and waits for ctx.
func (t *Tray) Run(ctx context.Context) error {
	if runtime.GOOS != "darwin" && !SessionBusAvailable() {
		return t.headless(ctx, "no D-Bus session bus")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	onReady := func() {
		if runtime.GOOS != "darwin" {
			systray.SetTitle(t.name) // the SNI item's name; on macOS a title would sit in the menu bar
		}
		go func() {
			defer close(done)
			t.loop(ctx)
			systray.Quit()
		}()
	}
	systray.Run(onReady, cancel)
	cancel()
	<-done
	return nil
}

// loop rebuilds the menu on each Update: one context for the tray's
// life, one per rebuild for that rebuild's click listeners.
func (t *Tray) loop(ctx context.Context) {
	var sh shown
	rctx, rcancel := context.WithCancel(ctx)
	t.rebuild(rctx, &sh)
	for {
		select {
		case <-ctx.Done():
			rcancel()
			return
		case <-t.dirty:
			rcancel()
			rctx, rcancel = context.WithCancel(ctx)
			t.rebuild(rctx, &sh)
		}
	}
}

func (t *Tray) rebuild(ctx context.Context, shown *shown) {
	v := t.current()
	if state := IconState(v); state != shown.icon {
		icon, err := assets.Icon(state)
		if err != nil {
			t.log.Warn("tray icon", "err", err)
		}
		tpl, _ := assets.Template(state)
		systray.SetTemplateIcon(tpl, icon)
		shown.icon = state
	}
	if sum := Summary(v); sum != shown.tooltip {
		systray.SetTooltip(sum)
		shown.tooltip = sum
	}
	systray.ResetMenu()
	for _, it := range menuItems(v) {
		t.add(ctx, nil, it)
	}
}

// shown is what the tray last set, so unchanged properties are not set
// again: each set is a D-Bus signal and a host redraw.
type shown struct{ icon, tooltip string }

func (t *Tray) add(ctx context.Context, parent *systray.MenuItem, it item) {
	if it.Separator {
		if parent == nil {
			systray.AddSeparator()
		}
		return
	}
	var mi *systray.MenuItem
	switch {
	case parent == nil && it.Checkbox:
		mi = systray.AddMenuItemCheckbox(it.Title, "", it.Checked)
	case parent == nil:
		mi = systray.AddMenuItem(it.Title, "")
	case it.Checkbox:
		mi = parent.AddSubMenuItemCheckbox(it.Title, "", it.Checked)
	default:
		mi = parent.AddSubMenuItem(it.Title, "")
	}
	if it.Disabled {
		mi.Disable()
	}
	for _, c := range it.Children {
		t.add(ctx, mi, c)
	}
	if it.Cmd != nil && !it.Disabled {
		go t.clicks(ctx, mi.ClickedCh, *it.Cmd)
	}
}

// clicks turns one item's clicks into its command until the rebuild that
// made it is superseded (ResetMenu also closes the channel).
func (t *Tray) clicks(ctx context.Context, ch <-chan struct{}, c Command) {
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-ch:
			if !ok {
				return
			}
			t.emit(ctx, c)
		}
	}
}
