package host

// CodexCLI is OpenAI's Codex CLI: ~/.codex/config.toml (CODEX_HOME moves
// the folder), [mcp_servers.<name>] with url, its headers in http_headers
// and env_http_headers, a bearer token's variable in bearer_token_env_var.
// Its client (rmcp) re-opens an expired session and retries the call once
// (codex #13514), but only after a 404: measured on 0.169.0, a server
// that answers the lost session with a 400 (the TypeScript SDK examples'
// quirk) leaves every later call hanging until its tool timeout. Each
// `codex exec` is a process of its own.
func CodexCLI() Profile {
	return Profile{
		Name:       "Codex CLI",
		ClientName: "codex-mcp-client",
		Process:    "codex",
		Config:     []ConfigFile{home(".codex", "CODEX_HOME").with("config.toml")},
		Layout: Layout{Tables: [][]string{{"mcp_servers"}}, URLKeys: []URLKey{{"url", StreamableHTTP}},
			Commands: command(), HeaderKeys: []string{"http_headers", "env_http_headers"}, TokenKeys: []string{"bearer_token_env_var"},
			Off: "enabled", OffWhenFalse: true},
		Behaviour: on404(Retries, Hangs).measured("0.169.0").onStdio(Stuck, "0.169.0", "Transport closed, at once, on every later call"),
	}
}
