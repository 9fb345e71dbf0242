package host

// Cline is Cline: its CLI 3.x (npm cline) and the current VS Code
// extension keep their servers in ~/.cline/data/settings/
// cline_mcp_settings.json (CLINE_DATA_DIR moves the data folder,
// CLINE_MCP_SETTINGS_PATH names the file), mcpServers.<name> with the URL
// nested under transport: {"transport": {"type": "streamableHttp", "url",
// "headers"}} (what `cline mcp add NAME URL --transport http --yes`
// writes); older extensions kept the flat {"type", "url"} in VS Code's
// global storage saoudrizwan.claude-dev/settings/, which the new one
// copies over once. Its client calls itself @cline/core. A prompt run
// (`cline PROMPT`) is a process of its own and leaves a hub daemon behind
// (`cline --cline-hub-daemon`), which is not the host. Measured on the
// CLI 3.0.65: stuck after every kind of answer ("Session not found").
func Cline() Profile {
	layout := Layout{Tables: [][]string{{"mcpServers"}}, TypeKeys: []string{"transport.type", "type"},
		URLKeys:    []URLKey{{"transport.url", StreamableHTTP}, {"url", StreamableHTTP}},
		HeaderKeys: []string{"transport.headers", "headers"},
		Commands:   []CommandKey{{Key: "transport.command", Args: "transport.args"}, {Key: "command", Args: "args"}}}
	data := home(".cline/data/settings")
	data.Env = []EnvDir{{Var: "CLINE_MCP_SETTINGS_PATH", File: true}, {Var: "CLINE_DATA_DIR", Sub: "settings"}}
	return Profile{
		Name:       "Cline",
		ClientName: "@cline/core",
		Process:    "cline",
		Helpers:    []string{"--cline-hub-daemon"},
		OneShot:    true,
		Config: []ConfigFile{data.with("cline_mcp_settings.json"),
			codeUser("globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json")},
		Layout:    layout,
		Behaviour: every(Stuck).measured("3.0.65").onStdio(Stuck, "3.0.65", `MCP server "mem" is not connected.`),
	}
}
