package host

// KiloCode is Kilo Code: its CLI 7.x and current VS Code extension are a
// fork of opencode and keep its format in ~/.config/kilo/kilo.jsonc or
// kilo.json ($XDG_CONFIG_HOME) and a project's kilo.jsonc, kilo.json or
// .kilo/kilo.jsonc; its 0.x CLI kept ~/.kilocode/cli/global/settings/
// mcp_settings.json, and the older extension VS Code's global storage
// kilocode.kilo-code/settings/mcp_settings.json (mcpServers with type
// "streamable-http"), with a project's .kilocode/mcp.json. Its client is
// opencode's, and calls itself opencode too: the watchdog cannot tell
// the two hosts' sessions apart, so only one of them is watched at a
// time. From its sources: it meets a lost session as opencode does.
func KiloCode() Profile {
	old := claudeShape()
	return Profile{
		Name:       "Kilo Code",
		ClientName: "opencode",
		Process:    "kilo",
		Config: []ConfigFile{xdgConfig("kilo").with("kilo.jsonc", "kilo.json"),
			home(".kilocode/cli/global/settings").with("mcp_settings.json").under(old),
			codeUser("globalStorage/kilocode.kilo-code/settings/mcp_settings.json").under(old)},
		Layout: opencodeShape(),
		ProjectFiles: ProjectFiles{Files: []ProjectFile{projectFile("kilo.jsonc", opencodeShape()), projectFile("kilo.json", opencodeShape()),
			projectFile(".kilo/kilo.jsonc", opencodeShape()), projectFile(".kilo/kilo.json", opencodeShape()),
			projectFile(".kilocode/mcp.json", old)}},
		Behaviour: on404(Retries, Stuck).from("from its sources: opencode's client, measured on opencode 1.18.33").
			stdioFrom("not measured: taken as stuck, as opencode 1.18.33 (its client) was measured"),
	}
}
