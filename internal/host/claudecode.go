package host

// ClaudeCode is Anthropic's Claude Code CLI. Its user-scope servers are in
// ~/.claude.json under mcpServers, and each project's local ones under
// projects[<path>].mcpServers (CLAUDE_CONFIG_DIR moves the file's folder);
// a project's shared servers are in <path>/.mcp.json, under mcpServers.
// In a project, local wins over project, project over user. It speaks the
// 2026-07-28 protocol (2.1.328 opens with server/discover).
// It rewrites that file itself while it runs. Measured on 2.1.332 (the
// host table): after either 404, and after the 400 some servers answer
// instead, it re-initializes and retries the call, which succeeds.
func ClaudeCode() Profile {
	return Profile{
		Name:       "Claude Code",
		ClientName: "claude-code",
		Process:    "claude",
		Config:     []ConfigFile{home("", "CLAUDE_CONFIG_DIR").with(".claude.json")},
		Layout: Layout{
			Tables:   [][]string{{"mcpServers"}, {"projects", "*", "mcpServers"}},
			TypeKeys: []string{"type"},
			URLKeys:  []URLKey{{"url", StreamableHTTP}},
			Commands: command(),
			Projects: []string{"projects"},
		},
		// The projects' keys in its own file name its project folders.
		ProjectFiles: ProjectFiles{Files: []ProjectFile{sharedMCPJSON()}},
		Behaviour: every(Retries).measured("2.1.332").
			onStdio(Retries, "2.1.332", "it starts a dead stdio server again when the next call comes (~0.4 s)"),
		// Measured on 2.1.328: it opens with server/discover at 2026-07-28.
		SpeaksModern: true,
	}
}
