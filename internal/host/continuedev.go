package host

// Continue is the Continue extension (VS Code, JetBrains) and its cn CLI:
// ~/.continue/config.yaml (CONTINUE_GLOBAL_DIR moves the folder), where
// mcpServers is a LIST of {name, type: streamable-http, url,
// requestOptions: {headers}} ("sse", or "stdio" with command and args);
// blocks in ~/.continue/mcpServers/*.yaml hold such lists too, and a
// workspace's .continue/mcpServers/ takes YAML blocks or JSON files in
// Claude Code's shape. Its client is the TypeScript SDK's, which keeps a
// lost session's id: from its sources, stuck.
func Continue() Profile {
	list := Layout{Lists: [][]string{{"mcpServers"}}, NameKey: "name", TypeKeys: []string{"type"},
		URLKeys: []URLKey{{"url", StreamableHTTP}}, HeaderKeys: []string{"requestOptions.headers"}, Commands: command()}
	dir := home(".continue", "CONTINUE_GLOBAL_DIR")
	return Profile{
		Name:       "Continue",
		ClientName: "continue-client",
		Process:    "cn",
		Config:     []ConfigFile{dir.with("config.yaml", "mcpServers/*.yaml"), dir.with("mcpServers/*.json").under(claudeShape())},
		Layout:     list,
		ProjectFiles: ProjectFiles{Files: []ProjectFile{projectFile(".continue/mcpServers/*.yaml", list),
			projectFile(".continue/mcpServers/*.json", claudeShape())}},
		Behaviour: every(Stuck).from("from its sources: the TypeScript SDK's client keeps a lost session's id").stdioFrom(notMeasuredStdio),
	}
}
