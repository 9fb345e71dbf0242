package host

// Goose is Block's goose (CLI and desktop): ~/.config/goose/config.yaml
// ($XDG_CONFIG_HOME, on macOS too), extensions.<name> with {type:
// streamable_http, uri, headers, enabled, timeout} ("sse" with uri,
// "stdio" with cmd and args; "builtin" and "platform" run inside goose);
// it writes the file with serde_yaml (keys sorted). Its client is the Rust
// SDK's (rmcp), which Codex CLI uses too. No headless run here (it needs a
// model provider set up by `goose configure`): from its sources, how it
// meets a lost session is not known; taken as stuck until seen to heal.
func Goose() Profile {
	return Profile{
		Name:       "Goose",
		ClientName: "goose",
		Process:    "goose",
		Config:     []ConfigFile{xdgConfig("goose").with("config.yaml")},
		Layout: Layout{Tables: [][]string{{"extensions"}}, TypeKeys: []string{"type"},
			Types:   map[string]Transport{"builtin": Builtin, "platform": Builtin, "frontend": Builtin, "inline_python": Stdio},
			URLKeys: []URLKey{{"uri", StreamableHTTP}}, Commands: []CommandKey{{Key: "cmd", Args: "args"}}},
		Behaviour: Behaviour{}.from("not known: its client is rmcp, which Codex CLI (measured) re-opens after a 404 and hangs on after a 400").
			stdioFrom(notMeasuredStdio),
	}
}
