package config

import (
	"reflect"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// TestText: a config written out by Text loads to the same hosts and
// servers, whatever they set: the built-in defaults, a machine as found
// (a server through its proxy), hosts that differ from their profiles,
// and values TOML must escape.
func TestText(t *testing.T) {
	t.Parallel()
	cursor := HostOf(host.Cursor())
	custom := HostOf(host.Cursor())
	custom.Name, custom.ClientName, custom.Logs, custom.Process, custom.Port = "Cursor at work", "cursor-vscode", []string{"/var/log/c/*.log"}, "", 4242
	custom.Restart, custom.AutoRestart, custom.ClientModule = []string{"cursor", "--x"}, true, "/opt/m.js"
	def := Default()
	if err := def.expandPaths(testEnv(nil)); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		c    Config
	}{
		{"the built-in defaults", def},
		{"a machine as found", Config{Hosts: []Host{cursor, HostOf(host.GeminiCLI())}, Servers: []Server{
			{Name: "mem", URL: "http://127.0.0.1:9001/mcp", IdleTimeout: Duration{DefaultIdleTimeout}, KeepWarm: true, ProxyListen: "127.0.0.1:14301"},
			{Name: "notes", URL: "http://127.0.0.1:9002/mcp", IdleTimeout: Duration{DefaultIdleTimeout}, KeepWarm: true}}}},
		{"every key set, values to escape", Config{Hosts: []Host{custom}, Servers: []Server{
			{Name: "far", URL: "http://10.0.0.9:9001/mcp?a=\"b\"\\c", Logs: []string{"/l/\u00e9*.log"}, Store: "/s/store.json",
				IdleTimeout: Duration{90 * time.Second}, Headers: map[string]string{"X-B": "${TOKEN}", "X-A": "tab\there"}, AllowInsecure: true}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text := Text(tt.c, "# head\n")
			got, err := parse("config.toml", []byte(text), testEnv(map[string]string{"TOKEN": "t"}))
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			if !reflect.DeepEqual(got.Hosts, tt.c.Hosts) || !reflect.DeepEqual(got.Servers, tt.c.Servers) {
				t.Fatalf("loaded back:\n%+v\n%+v\nwant\n%+v\n%+v\n%s", got.Hosts, got.Servers, tt.c.Hosts, tt.c.Servers, text)
			}
		})
	}
}
