package host

// CopilotCLI is GitHub Copilot CLI (`copilot`, npm @github/copilot): its
// servers in ~/.copilot/mcp-config.json (COPILOT_HOME moves the folder),
// mcpServers.<name> with {"type": "http", "url", "headers", "tools"}
// (what `copilot mcp add --transport http` writes; "local" or "stdio" for
// a command), and a project's .mcp.json or .github/mcp.json, which it
// reads only in a folder the user trusted (`copilot mcp --help` says where
// it looks). Its client calls itself copilot-cli. `copilot -p PROMPT` is
// one process per prompt. Measured on 1.0.102 (BYOK, no account): after
// a 404 it DELETEs the session, re-initializes and sends the call again;
// after the 400 quirk every later call hangs until it is killed.
func CopilotCLI() Profile {
	layout := claudeShape()
	layout.Types = map[string]Transport{"local": Stdio}
	return Profile{
		Name:       "Copilot CLI",
		ClientName: "copilot-cli",
		Process:    "copilot",
		OneShot:    true,
		Config:     []ConfigFile{home(".copilot", "COPILOT_HOME").with("mcp-config.json")},
		Layout:     layout,
		ProjectFiles: ProjectFiles{Files: []ProjectFile{projectFile(".mcp.json", layout), projectFile(".github/mcp.json", layout)},
			Note: "Copilot CLI reads it once you trust the folder"},
		Behaviour: on404(Retries, Hangs).measured("1.0.102").onStdio(Stuck, "1.0.102", "MCP tool catalog changed, then: Tool … does not exist"),
	}
}
