#!/bin/sh
# Desktop end-to-end test of the tray and notifications on a real headless
# desktop: Xvfb, a D-Bus session bus, status-notifier-watcher and the
# gtk-sni-tray-standalone tray host (tray/e2e starts and stops them all).
# It installs nothing; a missing tool FAILS the run, it never skips.
# Extra arguments go to `go test` (e.g. -v). WATCHDOG_SCREENSHOT=path keeps
# the screenshot (docs/screenshot-linux.png is one).
set -eu
cd "${0%/*}/.."

install="apt-get install -y xvfb dbus haskell-status-notifier-item-utils haskell-gtk-sni-tray-utils libglib2.0-bin x11-apps"
missing=""
for tool in Xvfb dbus-daemon dbus-run-session status-notifier-watcher gtk-sni-tray-standalone xwd; do
	command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
	echo "desktop-test: missing:$missing; install with: $install" >&2
	exit 1
fi
exec go test -race -count=1 -run '^TestDesktop$' ./tray/e2e/ "$@"
