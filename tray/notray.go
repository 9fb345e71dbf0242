//go:build darwin && !cgo

package tray

import "context"

// Run without cgo on macOS has no tray to show (systray needs Cocoa): it
// says so and waits for ctx, so the daemon runs on headless.
func (t *Tray) Run(ctx context.Context) error {
	return t.headless(ctx, "built without cgo: no menu-bar item on macOS")
}
