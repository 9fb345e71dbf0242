package host

// DSH is the DSH host (@deepseek-ai/dsh): its web UI (`dsh web`) listens on
// port 3080, and its MCP plugin @deepseek-ai/dsh-mcp-client holds the
// sessions. DSH keeps its data under ~/.dsh, and so do the client fix's
// backups, triggers and beacons. DSH may write no log file at all; when the
// watchdog starts DSH itself it logs DSH's output under its state dir.
// Its servers are plugin instances in each profile's cordis.yml (and the
// cordis.patch.yml beside it), which DSH reloads when the file changes.
// Its client keeps a lost session's id, whatever the server answers
// (measured on 0.1.0-rc.8): the patch or the proxy heals it.
func DSH() Profile {
	return Profile{
		Name:       "DSH",
		ClientName: "dsh-mcp-client",
		Logs:       []string{"~/.dsh/logs/*.log"},
		Process:    "dsh",
		Port:       3080,
		Restart:    []string{"dsh", "web"},
		Client: Client{
			Package:     "@deepseek-ai/dsh-mcp-client",
			Entry:       "lib/index.js",
			HostPackage: "@deepseek-ai/dsh",
			BackupDir:   ".dsh/backups/dsh-mcp-client-pre-onerror-fix",
			TriggerDir:  ".dsh/mcp-watchdog/recover",
			BeaconDir:   ".dsh/mcp-watchdog/clients",
		},
		Config: []ConfigFile{home(".dsh", "DSH_HOME").with("profiles/*/cordis.yml", "profiles/*/cordis.patch.yml")},
		Layout: Layout{
			Plugin:   Plugin{Key: "name", Value: "@deepseek-ai/dsh-mcp-client", Body: "config", NameKey: "serverName"},
			TypeKeys: []string{"transport"},
			URLKeys:  []URLKey{{"url", StreamableHTTP}},
			Commands: command(),
		},
		Behaviour:       every(Stuck).measured("0.1.0-rc.8").onStdio(Retries, "0.1.0-rc.8", "it starts a dead stdio server again by itself within ~1 s"),
		ReadsConfigLive: true,
	}
}
