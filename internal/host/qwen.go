package host

// QwenCode is Qwen Code (npm @qwen-code/qwen-code, a fork of Gemini CLI):
// ~/.qwen/settings.json (QWEN_HOME moves the folder), mcpServers.<name>
// with httpUrl for Streamable HTTP (url is SSE), headers, and comments
// allowed; a project's .qwen/settings.json (its workspace scope, which
// wins) and the project's shared .mcp.json (read as Claude Code writes
// it, once the user approved the server). It rewrites its settings file
// itself ("$version"). Its client names itself after each server:
// qwen-cli-mcp-client-<server>. `qwen PROMPT` is one process per prompt.
// Measured on 0.24.4: after a lost session it DELETEs it and
// re-initializes, but the call that met the loss fails, whatever the
// server answered.
func QwenCode() Profile {
	layout := mcpServers(URLKey{"httpUrl", StreamableHTTP}, URLKey{"url", SSE})
	layout.TypeKeys = nil // the URL's key tells the transport
	layout.OAuthKeys = []string{"authProviderType"}
	return Profile{
		Name:       "Qwen Code",
		ClientName: "qwen-cli-mcp-client-*",
		Process:    "qwen",
		OneShot:    true,
		Config:     []ConfigFile{home(".qwen", "QWEN_HOME").with("settings.json")},
		Layout:     layout,
		ProjectFiles: ProjectFiles{Files: []ProjectFile{{Name: ".qwen/settings.json", Layout: layout, Scope: WorkspaceScope},
			sharedMCPJSON()}},
		Behaviour: every(Reinitializes).measured("0.24.4").
			onStdio(Reinitializes, "0.24.4", "it starts a dead stdio server again at the next call, but fails that call (it replays only read-only or idempotent tools of trusted servers)"),
	}
}
