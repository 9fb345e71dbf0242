package host

// GeminiCLI is Google's Gemini CLI: ~/.gemini/settings.json,
// mcpServers.<name>.httpUrl for Streamable HTTP (url is SSE). How it meets
// a lost session is not known: it is taken to be stuck until seen to heal
// itself.
func GeminiCLI() Profile {
	return Profile{
		Name:       "Gemini CLI",
		ClientName: "gemini-cli-mcp-client",
		Process:    "gemini",
		Config:     []ConfigFile{{Darwin: ".gemini", Linux: ".gemini", Names: []string{"settings.json"}}},
		Layout:     mcpServers(URLKey{"httpUrl", StreamableHTTP}, URLKey{"url", SSE}),
		OnLoss:     Stuck,
	}
}
