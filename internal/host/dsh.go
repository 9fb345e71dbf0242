package host

// DSH is the DSH host (@deepseek-ai/dsh): its web UI (`dsh web`) listens on
// port 3080, and its MCP plugin @deepseek-ai/dsh-mcp-client holds the
// sessions. DSH keeps its data under ~/.dsh, and so do the client fix's
// backups, triggers and beacons. DSH may write no log file at all; when the
// watchdog starts DSH itself it logs DSH's output under its state dir.
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
	}
}
