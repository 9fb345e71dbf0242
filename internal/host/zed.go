package host

// Zed is the Zed editor: ~/.config/zed/settings.json ($XDG_CONFIG_HOME;
// the same folder on macOS), JSON with comments and trailing commas, and a
// project's .zed/settings.json. context_servers.<name> is {"url",
// "headers"} for a remote server or {"command", "args", "env"} for a
// local one (older builds: {"source": "custom", "command": {...}}). No
// headless mode to measure here; reports say it hangs about 60 s on a lost
// session (zed #57180).
func Zed() Profile {
	layout := Layout{Tables: [][]string{{"context_servers"}}, URLKeys: []URLKey{{"url", StreamableHTTP}},
		Commands: []CommandKey{{Key: "command", Args: "args"}, {Key: "command.path", Args: "command.args"}}}
	return Profile{
		Name:         "Zed",
		ClientName:   "Zed",
		Process:      "zed-editor",
		Config:       []ConfigFile{xdgConfig("zed").with("settings.json")},
		Layout:       layout,
		ProjectFiles: ProjectFiles{Files: []ProjectFile{projectFile(".zed/settings.json", layout)}},
		Behaviour:    every(Hangs).from("reports: it hangs about 60 s on a lost session (zed #57180)").stdioFrom(notMeasuredStdio),
	}
}
