package host

// CodexCLI is OpenAI's Codex CLI: ~/.codex/config.toml (CODEX_HOME moves
// the folder), [mcp_servers.<name>] with url. Its client (rmcp) re-opens
// an expired session and retries the call once (codex #13514), but only
// after a 404: measured on 0.169.0, a server that answers the lost session
// with a 400 (the TypeScript SDK examples' quirk) leaves every later call
// hanging until its tool timeout.
func CodexCLI() Profile {
	return Profile{
		Name:         "Codex CLI",
		ClientName:   "codex-mcp-client",
		Process:      "codex",
		Config:       []ConfigFile{{Darwin: ".codex", Linux: ".codex", Env: "CODEX_HOME", Names: []string{"config.toml"}}},
		Layout:       Layout{Tables: [][]string{{"mcp_servers"}}, URLKeys: []URLKey{{"url", StreamableHTTP}}},
		OnLoss:       Retries,
		OnBadRequest: Stuck,
	}
}
