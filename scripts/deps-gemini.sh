#!/usr/bin/env bash
# Installs the REAL Gemini CLI (@google/gemini-cli 0.61.0, Apache-2.0; one bundled
# JavaScript file, run on the system's Node 20+) that internal/testbed/hosts runs, into
# testdata/hosts/gemini/node_modules, as testdata/hosts/gemini/package-lock.json pins it
# (scripts/npm-host.sh does the work).
HOST_DIR=gemini
HOST_LABEL="@google/gemini-cli 0.61.0"
HOST_BIN=node_modules/@google/gemini-cli/bundle/gemini.js
HOST_WANT=0.61.0
host_version() { node "$HOST_BIN" --version; }
source "$(dirname "$0")/npm-host.sh"
