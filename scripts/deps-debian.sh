#!/usr/bin/env bash
# Installs the Debian packages the tests use, only those missing: make; node
# and npm for the TypeScript SDK servers and the client patch; the desktop
# test (a real X server, session bus, StatusNotifierWatcher and tray host);
# desktop-file-validate and systemd-analyze for the autostart files;
# chromium to load the timeline page in a real browser; dunst (a real
# notification service) and xdotool (clicks on the tray) for the desktop test;
# python3-venv for the Python MCP peers' venvs (scripts/deps-python.sh);
# nginx-light and haproxy, which make bench runs in front of the same
# servers as the watchdog's proxy (they are run as the bench's own
# children; the packages' system services are not used).
#
# As root it runs apt-get itself, otherwise sudo -n (sudo that needs no
# password); when neither can, it stops with the missing packages and the
# exact command to run. On a system without dpkg/apt-get it checks the
# commands the tests run and names the missing ones. `make deps` (so
# `make test`) and .ci/run call it; with everything present it is a no-op.
#
# DEPS_DEBIAN_UID overrides the effective user id: tests use it to act as a
# user without root. The script runs nothing but bash builtins, dpkg-query,
# apt-get and sudo, so a test can put fakes of those alone on PATH.
set -euo pipefail

# Each package, and the command of it the tests run (how a non-Debian
# system is checked).
packages=(
  make:make nodejs:node npm:npm xvfb:Xvfb dbus:dbus-daemon dbus-x11:dbus-launch
  haskell-status-notifier-item-utils:status-notifier-watcher
  haskell-gtk-sni-tray-utils:gtk-sni-tray-standalone libglib2.0-bin:gdbus
  x11-apps:xwd desktop-file-utils:desktop-file-validate systemd:systemd-analyze
  chromium:chromium dunst:dunst xdotool:xdotool python3-venv:python3
  nginx-light:nginx haproxy:haproxy
)

say() { echo "deps-debian: $*" >&2; }

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  absent=()
  for entry in "${packages[@]}"; do
    command -v "${entry#*:}" >/dev/null 2>&1 || absent+=("${entry#*:} (Debian: ${entry%%:*})")
  done
  if ((${#absent[@]} == 0)); then
    say "no dpkg-query/apt-get here, but every command the tests run is on PATH"
    exit 0
  fi
  say "no dpkg-query/apt-get here, so nothing can be installed for you."
  say "The tests need these commands, missing from PATH:"
  for a in "${absent[@]}"; do say "  $a"; done
  say "Install them with your system's package manager, then run: make test"
  exit 1
fi

missing=()
for entry in "${packages[@]}"; do
  p=${entry%%:*}
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == *"install ok installed"* ]] || missing+=("$p")
done
# node from another source (nvm, the image's own) counts as installed.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  kept=()
  for p in ${missing[@]+"${missing[@]}"}; do [[ $p == nodejs || $p == npm ]] || kept+=("$p"); done
  missing=(${kept[@]+"${kept[@]}"})
fi
if ((${#missing[@]} == 0)); then
  say "the ${#packages[@]} Debian packages the tests use are installed"
  exit 0
fi

install=(apt-get install -y -qq --no-install-recommends "${missing[@]}")
if [[ ${DEPS_DEBIAN_UID:-$EUID} == 0 ]]; then
  say "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${install[@]}"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  say "installing ${missing[*]} with sudo"
  sudo -n apt-get update -qq
  sudo -n env DEBIAN_FRONTEND=noninteractive "${install[@]}"
else
  say "the tests need Debian packages that are not installed: ${missing[*]}"
  say "Not root, and sudo is missing or wants a password, so install them yourself:"
  say "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
  say "then run: make test"
  exit 1
fi
