package host

// LMStudio is LM Studio (0.3.17 and later are MCP hosts): ~/.lmstudio/
// mcp.json in Cursor's notation, mcpServers.<name> with {"url",
// "headers"} for a remote server (macOS builds have been seen to keep it
// in ~/.cache/lm-studio/mcp.json). A desktop app with no headless MCP run
// here; how it meets a lost session is not known: taken as stuck until
// seen to heal itself.
func LMStudio() Profile {
	return Profile{
		Name:       "LM Studio",
		ClientName: "lm-studio",
		Process:    "LM Studio",
		Config:     []ConfigFile{home(".lmstudio").with("mcp.json"), home(".cache/lm-studio").with("mcp.json")},
		Layout:     claudeShape(),
		Behaviour:  Behaviour{}.from("not known: a desktop app with closed sources and no headless run").stdioFrom(notMeasuredStdio),
	}
}
