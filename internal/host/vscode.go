package host

// VSCode is Visual Studio Code: the user's mcp.json in its settings folder
// (JSON with comments and trailing commas), servers.<name> with type and
// url, and a workspace's .vscode/mcp.json, which wins for that workspace;
// the folders it opened are in its workspace storage. It re-initializes
// after a loss; the call that met it is lost.
func VSCode() Profile {
	layout := Layout{Tables: [][]string{{"servers"}}, TypeKey: "type", URLKeys: []URLKey{{"url", StreamableHTTP}}}
	return Profile{
		Name:       "VS Code",
		ClientName: "Visual Studio Code",
		Process:    "code",
		Config: []ConfigFile{{Darwin: "Library/Application Support/Code/User", Linux: ".config/Code/User",
			Names: []string{"mcp.json"}}},
		Layout:       layout,
		ProjectFiles: ProjectFiles{Names: []string{".vscode/mcp.json"}, Layout: layout, Listed: []ProjectList{workspaces("Code")}},
		OnLoss:       Reinitializes,
	}
}
