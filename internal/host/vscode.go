package host

// VSCode is Visual Studio Code: the user's mcp.json in its settings folder
// (JSON with comments and trailing commas), servers.<name> with type and
// url. It re-initializes after a loss; the call that met it is lost.
func VSCode() Profile {
	return Profile{
		Name:       "VS Code",
		ClientName: "Visual Studio Code",
		Process:    "code",
		Config: []ConfigFile{{Darwin: "Library/Application Support/Code/User", Linux: ".config/Code/User",
			Names: []string{"mcp.json"}}},
		Layout: Layout{Tables: [][]string{{"servers"}}, TypeKey: "type", URLKeys: []URLKey{{"url", StreamableHTTP}}},
		OnLoss: Reinitializes,
	}
}
