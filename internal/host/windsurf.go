package host

// Windsurf is Codeium's editor: ~/.codeium/windsurf/mcp_config.json,
// mcpServers.<name>.serverUrl. How it meets a lost session is not known
// (no headless mode to measure here): it is taken to be stuck until seen
// to heal itself.
func Windsurf() Profile {
	return Profile{
		Name:       "Windsurf",
		ClientName: "windsurf-client",
		Process:    "windsurf",
		Config:     []ConfigFile{home(".codeium/windsurf").with("mcp_config.json")},
		Layout:     mcpServers(URLKey{"serverUrl", StreamableHTTP}, URLKey{"url", StreamableHTTP}),
		Behaviour:  Behaviour{}.from("not known: no headless mode to measure here, and its sources are closed").stdioFrom(notMeasuredStdio),
	}
}
