# Sourced by the scripts that run a host CLI (npm-host.sh's version check,
# deps-dsh.sh): `isolated CMD...` runs CMD with a HOME, XDG folders and the
# hosts' own home variables of its own, removed afterwards. A host writes
# into the HOME it is given even for --version (Gemini CLI its project
# registry, ~/.gemini/projects.json.*.tmp; Codex CLI ~/.codex/tmp): the
# user's is never that HOME. The npm cache stays where it was.
isolated() {
  local scratch status=0
  scratch=$(mktemp -d)
  (
    export npm_config_cache="${npm_config_cache:-$HOME/.npm}"
    export HOME="$scratch" XDG_CONFIG_HOME="$scratch/.config" XDG_STATE_HOME="$scratch/.local/state" \
      XDG_DATA_HOME="$scratch/.local/share" XDG_CACHE_HOME="$scratch/.cache" CODEX_HOME="$scratch/.codex" \
      GEMINI_CLI_HOME="$scratch" DSH_HOME="$scratch/.dsh" CLAUDE_CONFIG_DIR="$scratch/.claude" \
      COPILOT_HOME="$scratch/.copilot" QWEN_HOME="$scratch/.qwen" CLINE_DATA_DIR="$scratch/.cline/data"
    unset CLINE_MCP_SETTINGS_PATH OPENCODE_CONFIG
    "$@"
  ) || status=$?
  rm -rf "$scratch"
  return "$status"
}
