#!/usr/bin/env bash
# Assembles "build/MCP Session Watchdog.app" (`make app`) from a darwin
# binary: Contents/Info.plist (packaging/macos/Info.plist with the version
# filled in), Contents/MacOS/watchdog, Contents/PkgInfo.
#
# By default it cross-builds GOOS=darwin GOARCH=arm64 CGO_ENABLED=0, which is
# enough to assemble and check the bundle on Linux, but that binary has NO
# tray (fyne.io/systray needs cgo on macOS; it runs headless). For a real
# menu-bar app build on a Mac with CGO_ENABLED=1, or pass DARWIN_BIN=path to
# a binary built there.
#
# Env: VERSION, COMMIT, GOARCH (arm64|amd64), CGO_ENABLED (default 0),
# DARWIN_BIN (skip the build), OUT (default build).
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
GOARCH=${GOARCH:-arm64}
OUT=${OUT:-build}
app="$OUT/MCP Session Watchdog.app"

# CFBundleShortVersionString must be numbers: v1.2.3-4-gabc -> 1.2.3; a
# bare commit (no tag yet) -> 0.0.0.
short=${VERSION#v}
[[ $short =~ ^([0-9]+\.[0-9]+(\.[0-9]+)?) ]] && short=${BASH_REMATCH[1]} || short=0.0.0

rm -rf "$app"
mkdir -p "$app/Contents/MacOS" "$app/Contents/Resources"
if [[ -n ${DARWIN_BIN:-} ]]; then
	cp "$DARWIN_BIN" "$app/Contents/MacOS/watchdog"
else
	if [[ ${CGO_ENABLED:-0} == 0 ]]; then
		echo "macos-app.sh: CGO_ENABLED=0 build: the app runs without its tray (build on a Mac with CGO_ENABLED=1 for the menu bar)" >&2
	fi
	CGO_ENABLED=${CGO_ENABLED:-0} GOOS=darwin GOARCH=$GOARCH "$GO" build -trimpath \
		-ldflags "-s -w -X main.version=$VERSION -X main.commit=$COMMIT" \
		-o "$app/Contents/MacOS/watchdog" ./cmd/watchdog
fi
chmod 0755 "$app/Contents/MacOS/watchdog"
sed "s/@VERSION@/$short/g" packaging/macos/Info.plist >"$app/Contents/Info.plist"
printf 'APPL????' >"$app/Contents/PkgInfo"
if command -v plutil >/dev/null; then plutil -lint "$app/Contents/Info.plist" >&2; fi
echo "$app"
