#!/bin/sh
# Desktop end-to-end tests of the tray and notifications on a real headless
# desktop: Xvfb, a D-Bus session bus, status-notifier-watcher, the
# gtk-sni-tray-standalone tray host and dunst (tray/e2e starts and stops
# them all; xdotool clicks). It installs nothing; a missing tool FAILS the
# run, it never skips. Extra arguments go to `go test` (e.g. -v).
# WATCHDOG_SCREENSHOT=path keeps the menu-and-bubble screenshot
# (docs/screenshot-linux.png is one).
set -eu
cd "${0%/*}/.."

install="apt-get install -y xvfb dbus haskell-status-notifier-item-utils haskell-gtk-sni-tray-utils libglib2.0-bin x11-apps dunst xdotool"
missing=""
for tool in Xvfb dbus-daemon dbus-run-session status-notifier-watcher gtk-sni-tray-standalone xwd dunst dunstctl xdotool; do
	command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
	echo "desktop-test: missing:$missing; install with: $install" >&2
	exit 1
fi
exec go test -race -count=1 ./tray/e2e/ "$@"
