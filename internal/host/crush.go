package host

// Crush is Charm's Crush: ~/.config/crush/crush.json ($XDG_CONFIG_HOME;
// CRUSH_GLOBAL_CONFIG names the folder), ~/.local/share/crush/crush.json
// ($XDG_DATA_HOME, where it keeps what it writes itself), and a project's
// crush.json or .crush.json. mcp.<name> is {"type": "http", "url",
// "headers", "disabled"} ("sse", or "stdio" with command and args). Its
// client calls itself crush; `crush run PROMPT` is one process per prompt.
// Measured on v0.90 (the build; its npm package fetches the binary
// from GitHub and the Go module proxy refuses it, so it is not installed
// here): it pings before every call, and heals after every kind of answer.
func Crush() Profile {
	layout := Layout{Tables: [][]string{{"mcp"}}, TypeKeys: []string{"type"}, URLKeys: []URLKey{{"url", StreamableHTTP}}, Commands: command()}
	return Profile{
		Name:         "Crush",
		ClientName:   "crush",
		Process:      "crush",
		OneShot:      true,
		Config:       []ConfigFile{xdgConfig("crush", "CRUSH_GLOBAL_CONFIG").with("crush.json"), xdgData("crush").with("crush.json")},
		Layout:       layout,
		ProjectFiles: ProjectFiles{Files: []ProjectFile{projectFile("crush.json", layout), projectFile(".crush.json", layout)}},
		Behaviour: every(Retries).measured("v0.90").
			from("in the issue's own run (not installable here); it pings before every call: the ping meets the loss, and the call goes out on a new session").
			stdioFrom(notMeasuredStdio),
	}
}
