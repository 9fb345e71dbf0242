#!/usr/bin/env bash
# Installs the REAL opencode CLI (opencode-ai 1.18.33, MIT; its native binary comes as the
# npm package of the platform, opencode-linux-x64) that internal/testbed/hosts runs, into
# testdata/hosts/opencode/node_modules, as testdata/hosts/opencode/package-lock.json pins it
# (scripts/npm-host.sh does the work).
HOST_DIR=opencode
HOST_LABEL="opencode-ai 1.18.33"
HOST_BIN=node_modules/opencode-linux-x64/bin/opencode
HOST_WANT=1.18.33
host_version() { "$HOST_BIN" --version; }
source "$(dirname "$0")/npm-host.sh"
