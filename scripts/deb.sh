#!/usr/bin/env bash
# Builds dist/mcp-watchdog_<version>_<arch>.deb (`make deb`): the watchdog
# for linux/$GOARCH with the version linked in, packaged by nfpm from
# packaging/nfpm.yaml. nfpm is a Go module run with `go run`, nothing to
# install.
#
# Env: VERSION (default: git describe), COMMIT, GOARCH (default amd64),
# BIN (default bin/watchdog), DIST (default dist), NFPM_VERSION,
# DEB_MAINTAINER.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
GOARCH=${GOARCH:-amd64}
BIN=${BIN:-bin/watchdog}
DIST=${DIST:-dist}
# v2.46.0 and later need go.digitalxero.dev modules that the module proxy
# reachable here refuses (403); v2.45.2 is the newest that builds.
NFPM_VERSION=${NFPM_VERSION:-v2.45.2}
DEB_MAINTAINER=${DEB_MAINTAINER:-MCP Session Watchdog developers <mcp-watchdog@localhost>}

# A Debian version starts with a digit: v1.2.3 -> 1.2.3, a bare commit
# 1c319a9 -> 0.0.0~git1c319a9; '-' (the revision separator) becomes '+'.
deb_version() {
	local v=${1#v}
	[[ $v =~ ^[0-9]+\.[0-9]+ ]] || v="0.0.0~git$v"
	v=${v//-/+}
	printf '%s' "${v//[^A-Za-z0-9.+~]/+}"
}
DEB_VERSION=${DEB_VERSION:-$(deb_version "$VERSION")}

case $GOARCH in
amd64 | arm64) DEB_ARCH=$GOARCH ;;
*) echo "deb.sh: GOARCH=$GOARCH not packaged (amd64, arm64)" >&2; exit 2 ;;
esac

mkdir -p "$(dirname "$BIN")" "$DIST"
CGO_ENABLED=0 GOOS=linux GOARCH=$GOARCH "$GO" build -trimpath \
	-ldflags "-s -w -X main.version=$VERSION -X main.commit=$COMMIT" -o "$BIN" ./cmd/watchdog

out="$DIST/mcp-watchdog_${DEB_VERSION}_${DEB_ARCH}.deb"
WATCHDOG_BIN=$BIN DEB_VERSION=$DEB_VERSION DEB_ARCH=$DEB_ARCH DEB_MAINTAINER=$DEB_MAINTAINER \
	"$GO" run "github.com/goreleaser/nfpm/v2/cmd/nfpm@$NFPM_VERSION" \
	pkg --packager deb --config packaging/nfpm.yaml --target "$out" >&2
echo "$out"
