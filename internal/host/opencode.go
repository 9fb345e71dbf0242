package host

// Opencode is the opencode CLI (npm opencode-ai): its servers in
// ~/.config/opencode/opencode.jsonc, opencode.json or config.json
// ($XDG_CONFIG_HOME; OPENCODE_CONFIG names one more file), and in a
// project's opencode.jsonc or opencode.json, or .opencode/opencode.jsonc.
// mcp.<name> is {"type": "remote", "url", "headers", "enabled", "oauth"}
// (what `opencode mcp add NAME --url URL` writes; "local" with a command
// list for stdio); its V2 moves them to mcp.servers.<name>. It writes JSON
// with comments, two spaces, and adds $schema to a file that lacks it. A
// remote server it tries over Streamable HTTP first, then SSE. Its client
// calls itself opencode. `opencode run PROMPT` is one process per prompt.
// Measured on 1.18.33: after a 404 it re-initializes and sends the call
// again; after the 400 quirk it is stuck.
func Opencode() Profile {
	return Profile{
		Name:       "opencode",
		ClientName: "opencode",
		Process:    "opencode",
		OneShot:    true,
		Config: []ConfigFile{xdgConfig("opencode").with("opencode.jsonc", "opencode.json", "config.json"),
			envFile("OPENCODE_CONFIG")},
		Layout: opencodeShape(),
		ProjectFiles: ProjectFiles{Files: []ProjectFile{projectFile("opencode.jsonc", opencodeShape()),
			projectFile("opencode.json", opencodeShape()), projectFile(".opencode/opencode.jsonc", opencodeShape()),
			projectFile(".opencode/opencode.json", opencodeShape())}},
		Behaviour: on404(Retries, Stuck).measured("1.18.33").onStdio(Stuck, "1.18.33", "Not connected, then the tool is dropped from its list"),
	}
}

// opencodeShape is opencode's (and Kilo Code's) mcp table: a remote
// server is type "remote" with url, a local one type "local" with a
// command list; V2 puts the servers under mcp.servers.
func opencodeShape() Layout {
	return Layout{Tables: [][]string{{"mcp"}, {"mcp", "servers"}}, TypeKeys: []string{"type"},
		Types: map[string]Transport{"remote": StreamableHTTP, "local": Stdio}, URLKeys: []URLKey{{"url", StreamableHTTP}},
		Commands: []CommandKey{{Key: "command", Argv: true}}}
}
