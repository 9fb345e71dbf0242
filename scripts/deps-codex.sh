#!/usr/bin/env bash
# Installs the REAL Codex CLI (@openai/codex 0.169.0, Apache-2.0; its native binary comes
# as the npm package of the platform) that internal/testbed/hosts runs, into
# testdata/hosts/codex/node_modules, as testdata/hosts/codex/package-lock.json pins it
# (scripts/npm-host.sh does the work).
HOST_DIR=codex
HOST_LABEL="@openai/codex 0.169.0"
HOST_BIN=node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex
HOST_WANT="codex-cli 0.169.0"
host_version() { "$HOST_BIN" --version; }
source "$(dirname "$0")/npm-host.sh"
