package host

// GeminiCLI is Google's Gemini CLI: ~/.gemini/settings.json (GEMINI_CLI_HOME
// moves the folder's parent), mcpServers.<name> with {"url", "type": "http"}
// (what `gemini mcp add -t http` writes today), the deprecated httpUrl
// (Streamable HTTP), or a url without type (Streamable HTTP first, then
// SSE). `gemini mcp add` writes the project's .gemini/settings.json by
// default, which Gemini reads only in a folder it trusts
// (~/.gemini/trustedFolders.json) and which wins over the user's file; the
// folders it has run in are in ~/.gemini/projects.json. Measured on 0.61.0
// (the host table): stuck after every kind of answer. It runs as one
// process per prompt (`gemini -p`) as well as interactively.
func GeminiCLI() Profile {
	layout := mcpServers(URLKey{"httpUrl", StreamableHTTP}, URLKey{"url", StreamableHTTP})
	layout.OAuthKeys = []string{"authProviderType"}
	dir := ConfigFile{Darwin: ".gemini", Linux: ".gemini", Env: []EnvDir{{Var: "GEMINI_CLI_HOME", Sub: ".gemini"}}}
	return Profile{
		Name:       "Gemini CLI",
		ClientName: "gemini-cli-mcp-client",
		Process:    "gemini",
		Config:     []ConfigFile{dir.with("settings.json")},
		Layout:     layout,
		ProjectFiles: ProjectFiles{Files: []ProjectFile{projectFile(".gemini/settings.json", layout)},
			Listed: []ProjectList{{File: dir.with("projects.json"), Keys: []string{"projects"}}, {File: dir.with("trustedFolders.json")}},
			Trust:  &TrustedFolders{File: dir.with("trustedFolders.json"), EnvTrust: "GEMINI_CLI_TRUST_WORKSPACE", Setting: []string{"security", "folderTrust", "enabled"}}},
		Behaviour: every(Stuck).measured("0.61.0").onStdio(Stuck, "0.61.0", "Not connected, on every later call"),
	}
}
