package host

// GeminiCLI is Google's Gemini CLI: ~/.gemini/settings.json (GEMINI_CLI_HOME
// moves the folder's parent), mcpServers.<name> with {"url", "type": "http"}
// (what `gemini mcp add -t http` writes today), the deprecated httpUrl
// (Streamable HTTP), or a url without type (Streamable HTTP first, then
// SSE). `gemini mcp add` writes the project's .gemini/settings.json by
// default, which Gemini reads only in a folder it trusts
// (~/.gemini/trustedFolders.json) and which wins over the user's file; the
// folders it has run in are in ~/.gemini/projects.json. Measured on 0.61.0
// (the host table): stuck after either kind of loss.
func GeminiCLI() Profile {
	layout := mcpServers(URLKey{"httpUrl", StreamableHTTP}, URLKey{"url", StreamableHTTP})
	home := ConfigFile{Darwin: ".gemini", Linux: ".gemini", Env: "GEMINI_CLI_HOME", EnvSub: ".gemini"}
	return Profile{
		Name:       "Gemini CLI",
		ClientName: "gemini-cli-mcp-client",
		Process:    "gemini",
		Config:     []ConfigFile{home.with("settings.json")},
		Layout:     layout,
		ProjectFiles: ProjectFiles{Names: []string{".gemini/settings.json"}, Layout: layout,
			Listed: []ProjectList{{File: home.with("projects.json"), Keys: []string{"projects"}}, {File: home.with("trustedFolders.json")}},
			Trust:  &TrustedFolders{File: home.with("trustedFolders.json"), EnvTrust: "GEMINI_CLI_TRUST_WORKSPACE", Setting: []string{"security", "folderTrust", "enabled"}}},
		OnLoss: Stuck,
	}
}
