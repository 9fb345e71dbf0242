package host

// Cursor is the Cursor editor: ~/.cursor/mcp.json, mcpServers.<name>.url.
// Reports are mixed (stuck until the server is toggled, cursor #3640;
// re-initializes in 2026 builds): it is taken to be stuck until seen to
// heal itself.
func Cursor() Profile {
	return Profile{
		Name:       "Cursor",
		ClientName: "cursor-vscode",
		Process:    "Cursor",
		Config:     []ConfigFile{{Darwin: ".cursor", Linux: ".cursor", Names: []string{"mcp.json"}}},
		Layout:     mcpServers(URLKey{"url", StreamableHTTP}),
		OnLoss:     Stuck,
	}
}
