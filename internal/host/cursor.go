package host

// Cursor is the Cursor editor: ~/.cursor/mcp.json, mcpServers.<name>.url,
// and a project's .cursor/mcp.json, which wins over the global file for
// that project; the folders it opened are in its workspace storage.
// Reports are mixed (stuck until the server is toggled, cursor #3640;
// re-initializes in 2026 builds): it is taken to be stuck until seen to
// heal itself. It has no headless mode to measure here.
func Cursor() Profile {
	layout := claudeShape()
	return Profile{
		Name:       "Cursor",
		ClientName: "cursor-vscode",
		Process:    "Cursor",
		Config:     []ConfigFile{home(".cursor").with("mcp.json")},
		Layout:     layout,
		ProjectFiles: ProjectFiles{Files: []ProjectFile{projectFile(".cursor/mcp.json", layout)},
			Listed: []ProjectList{workspaces("Cursor")}},
		Behaviour: every(Stuck).from("reports are mixed (stuck until the server is toggled, cursor #3640); taken as stuck").stdioFrom(notMeasuredStdio),
	}
}

// workspaces is the folders a VS Code-based editor opened: each
// workspaceStorage/*/workspace.json names one as a file:// URI.
func workspaces(app string) ProjectList {
	return ProjectList{File: ConfigFile{Darwin: "Library/Application Support/" + app + "/User/workspaceStorage",
		Linux: ".config/" + app + "/User/workspaceStorage", Names: []string{"*/workspace.json"}}, Value: "folder"}
}
