// Package e2e holds the desktop end-to-end test of the tray and the
// notifications on a real headless desktop: Xvfb, a D-Bus session bus, a
// StatusNotifierWatcher and a tray host that draws the icon. Run it with
// scripts/desktop-test.sh. A missing tool fails the test; it never skips.
// It is a Linux desktop (X11, D-Bus): its tests build on Linux only.
package e2e
