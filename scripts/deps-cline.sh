#!/usr/bin/env bash
# Installs the REAL Cline CLI (cline 3.0.65, Apache-2.0; its compiled binary comes as the npm
# package of the platform, @cline/cli-linux-x64) that internal/testbed/hosts runs, into
# testdata/hosts/cline/node_modules, as testdata/hosts/cline/package-lock.json pins it
# (scripts/npm-host.sh does the work).
HOST_DIR=cline
HOST_LABEL="cline 3.0.65"
HOST_BIN=node_modules/@cline/cli-linux-x64/bin/cline
HOST_WANT=3.0.65
host_version() { "$HOST_BIN" --version; }
source "$(dirname "$0")/npm-host.sh"
