package host

// ClaudeDesktop is Anthropic's desktop app. Its file holds stdio servers
// only; a remote one is `npx mcp-remote <url>` in an entry's args
// (connectors added in the app are not in the file). It stays stuck on a
// lost session until the app restarts (reports; no headless mode to
// measure here).
func ClaudeDesktop() Profile {
	return Profile{
		Name:       "Claude Desktop",
		ClientName: "claude-ai",
		Process:    "Claude",
		Config: []ConfigFile{{Darwin: "Library/Application Support/Claude", Linux: ".config/Claude",
			Names: []string{"claude_desktop_config.json"}}},
		Layout:    mcpServers(),
		Behaviour: every(Stuck).from("reports: stuck until the app restarts").stdioFrom(notMeasuredStdio),
	}
}
