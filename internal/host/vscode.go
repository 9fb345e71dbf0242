package host

// VSCode is Visual Studio Code: the user's mcp.json in its settings folder
// (JSON with comments and trailing commas), servers.<name> with type and
// url, and a workspace's .vscode/mcp.json, which wins for that workspace;
// the folders it opened are in its workspace storage. Its Copilot agent
// harness (late 2026) also reads ~/.copilot/mcp-config.json (COPILOT_HOME),
// the file Copilot CLI keeps, and a project's .mcp.json, and calls the
// servers files the deprecated "Local" format. After a 404 it
// re-initializes; the call that met the loss is lost (from its sources;
// it has no headless mode to measure here).
func VSCode() Profile {
	layout := Layout{Tables: [][]string{{"servers"}}, TypeKeys: []string{"type"}, URLKeys: []URLKey{{"url", StreamableHTTP}}, Commands: command()}
	return Profile{
		Name:       "VS Code",
		ClientName: "Visual Studio Code",
		Process:    "code",
		Config: []ConfigFile{codeUser("mcp.json"),
			home(".copilot", "COPILOT_HOME").with("mcp-config.json").under(claudeShape())},
		Layout: layout,
		ProjectFiles: ProjectFiles{Files: []ProjectFile{projectFile(".vscode/mcp.json", layout), sharedMCPJSON()},
			Listed: []ProjectList{workspaces("Code")}},
		Behaviour: Behaviour{React: map[Answer]Reaction{NotFoundRPC: Reinitializes, NotFoundText: Reinitializes}}.
			from("from its sources: it re-initializes after a 404 and the call that met the loss is lost; after a 400 not known").
			stdioFrom(notMeasuredStdio),
	}
}
