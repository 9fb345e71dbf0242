package host

// Windsurf is Codeium's editor: ~/.codeium/windsurf/mcp_config.json,
// mcpServers.<name>.serverUrl. How it meets a lost session is not known:
// it is taken to be stuck until seen to heal itself.
func Windsurf() Profile {
	return Profile{
		Name:       "Windsurf",
		ClientName: "windsurf-client",
		Process:    "windsurf",
		Config:     []ConfigFile{{Darwin: ".codeium/windsurf", Linux: ".codeium/windsurf", Names: []string{"mcp_config.json"}}},
		Layout:     mcpServers(URLKey{"serverUrl", StreamableHTTP}, URLKey{"url", StreamableHTTP}),
		OnLoss:     Stuck,
	}
}
