// Package tray is the menu-bar face of the watchdog: it renders a View
// (the model's Status plus a few toggles) as an icon, a tooltip and a
// menu, and turns clicks into Commands. It never decides health and never
// talks HTTP; the daemon owns both and feeds Update.
//
// On Linux the tray is pure Go over D-Bus (StatusNotifierItem and
// dbusmenu) and needs a session bus; on macOS it needs cgo and the main
// goroutine. A darwin build without cgo has no tray (see notray.go).
package tray
