#!/usr/bin/env bash
# Installs the REAL Claude Code CLI (@anthropic-ai/claude-code 2.1.332, proprietary; its
# native binary comes as the npm package of the platform, @anthropic-ai/claude-code-linux-x64)
# that internal/testbed/hosts runs, into testdata/hosts/claude/node_modules, as
# testdata/hosts/claude/package-lock.json pins it (scripts/npm-host.sh does the work).
HOST_DIR=claude
HOST_LABEL="@anthropic-ai/claude-code 2.1.332"
HOST_BIN=node_modules/.bin/claude
HOST_WANT="2.1.332 (Claude Code)"
host_version() { "$HOST_BIN" --version; }
# What the package's postinstall (install.cjs) does, which --ignore-scripts skips: put the
# platform package's native binary over bin/claude.exe (the `claude` command), a stub that
# only says the binary is missing; a hard link, else a copy.
host_postinstall() {
  local src=node_modules/@anthropic-ai/claude-code-linux-x64/claude
  local dest=node_modules/@anthropic-ai/claude-code/bin/claude.exe
  [ -f "$src" ] || fail "$src is missing after npm ci"
  ln -f "$src" "$dest" 2>/dev/null || cp -f "$src" "$dest"
  chmod 755 "$dest"
}
source "$(dirname "$0")/npm-host.sh"
