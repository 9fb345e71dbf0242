package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestValidate edits Default() one way at a time; a config not read from a
// file reports "config: KEY: ..." with no line.
// Long: a table of 61 cases.
func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(c *Config)
		err  string // "" means valid
	}{
		{name: "default", edit: func(*Config) {}},
		{name: "metrics localhost", edit: func(c *Config) { c.MetricsListen = "localhost:9464" }},
		{name: "metrics 127/8", edit: func(c *Config) { c.MetricsListen = "127.1.2.3:80" }},
		{name: "metrics ::1", edit: func(c *Config) { c.MetricsListen = "[::1]:9464" }},
		{name: "metrics mapped v4", edit: func(c *Config) { c.MetricsListen = "[::ffff:127.0.0.1]:9464" }},
		{name: "metrics all interfaces", edit: func(c *Config) { c.MetricsListen = ":9464" }, err: "metrics_listen: \":9464\" is not a loopback address"},
		{name: "metrics 0.0.0.0", edit: func(c *Config) { c.MetricsListen = "0.0.0.0:9464" }, err: "not a loopback address"},
		{name: "metrics LAN", edit: func(c *Config) { c.MetricsListen = "192.168.0.2:9464" }, err: "not a loopback address"},
		{name: "metrics name", edit: func(c *Config) { c.MetricsListen = "example.com:9464" }, err: "not a loopback address"},
		{name: "metrics no port", edit: func(c *Config) { c.MetricsListen = "127.0.0.1" }, err: "is not host:port"},
		{name: "metrics port 0", edit: func(c *Config) { c.MetricsListen = "127.0.0.1:0" }, err: "has no valid port"},
		{name: "metrics port name", edit: func(c *Config) { c.MetricsListen = "127.0.0.1:http" }, err: "has no valid port"},

		{name: "proxy loopback", edit: func(c *Config) { c.Servers[0].ProxyListen = "127.0.0.1:14243" }},
		{name: "proxy ::1", edit: func(c *Config) { c.Servers[0].ProxyListen = "[::1]:14243" }},
		{name: "proxy all interfaces", edit: func(c *Config) { c.Servers[0].ProxyListen = ":14243" },
			err: `server[0].proxy_listen: ":14243" is not a loopback address (the proxy hands out the host's sessions)`},
		{name: "proxy LAN", edit: func(c *Config) { c.Servers[0].ProxyListen = "192.168.1.5:14243" }, err: "not a loopback address"},
		{name: "proxy no port", edit: func(c *Config) { c.Servers[0].ProxyListen = "127.0.0.1" }, err: "server[0].proxy_listen: \"127.0.0.1\" is not host:port"},
		{name: "proxy port 0", edit: func(c *Config) { c.Servers[0].ProxyListen = "127.0.0.1:0" }, err: "has no valid port"},
		{name: "proxy on the metrics port", edit: func(c *Config) { c.MetricsListen, c.Servers[0].ProxyListen = "127.0.0.1:9464", "127.0.0.1:9464" },
			err: `server[0].proxy_listen: "127.0.0.1:9464" is already taken by metrics_listen`},
		{name: "two proxies on one port", edit: func(c *Config) {
			c.Servers = append(c.Servers, c.Servers[0])
			c.Servers[1].Name = "other"
			c.Servers[0].ProxyListen, c.Servers[1].ProxyListen = "127.0.0.1:14243", "127.0.0.1:14243"
		}, err: `server[1].proxy_listen: "127.0.0.1:14243" is already taken by server[0].proxy_listen`},

		{name: "https", edit: func(c *Config) { c.Servers[0].URL = "https://mcp.example.com/mcp" }},
		{name: "http localhost", edit: func(c *Config) { c.Servers[0].URL = "http://localhost/mcp" }},
		{name: "upper-case scheme", edit: func(c *Config) { c.Servers[0].URL = "HTTP://127.0.0.1:1/mcp" }},
		{name: "http ::1", edit: func(c *Config) { c.Servers[0].URL = "http://[::1]:14242/mcp" }},
		{name: "url empty", edit: func(c *Config) { c.Servers[0].URL = "" }, err: "server[0].url: missing; use http://host:port/path"},
		{name: "url no host", edit: func(c *Config) { c.Servers[0].URL = "http:///mcp" }, err: "is not an http(s) URL"},
		{name: "url ws", edit: func(c *Config) { c.Servers[0].URL = "ws://127.0.0.1/mcp" }, err: "is not an http(s) URL"},
		{name: "url relative", edit: func(c *Config) { c.Servers[0].URL = "/mcp" }, err: "is not an http(s) URL"},
		{name: "url a proxy's", edit: func(c *Config) { c.Servers[0].URL = "http://127.0.0.1:14301/ABCDEFGHIJKLMNOPQRSTUVWXYZ/mcp" }, err: "is a watchdog proxy's URL (on 127.0.0.1:14301"},
		{name: "url garbage", edit: func(c *Config) { c.Servers[0].URL = "http://[::1/mcp" }, err: "does not parse: http://[::1/…: missing ']' in host"},
		{name: "url bad port", edit: func(c *Config) { c.Servers[0].URL = "http://127.0.0.1:99999/mcp" }, err: "has no valid port"},
		{name: "plain http remote", edit: func(c *Config) { c.Servers[0].URL = "http://10.0.0.5/mcp" }, err: "allow_insecure = true"},
		{name: "plain http remote allowed", edit: func(c *Config) {
			c.Servers[0].URL = "http://10.0.0.5/mcp"
			c.Servers[0].AllowInsecure = true
		}},

		{name: "name chars", edit: func(c *Config) { c.Servers[0].Name = "a/b" }, err: `server[0].name: "a/b" is not a usable name`},
		{name: "name too long", edit: func(c *Config) { c.Servers[0].Name = strings.Repeat("a", 65) }, err: "is not a usable name"},
		{name: "name dots", edit: func(c *Config) { c.Servers[0].Name = "." }, err: "is not a usable name"},
		{name: "name ok", edit: func(c *Config) { c.Servers[0].Name = "Mem_2.test-x" }},
		{name: "duplicate names", edit: func(c *Config) {
			c.Servers = append(c.Servers, c.Servers[0])
		}, err: `server[1].name: "nowledge-mem" is already the name of server[0]`},

		{name: "zero timeout", edit: func(c *Config) { c.Servers[0].IdleTimeout = Duration{} }, err: "server[0].idle_timeout: 0s is not a timeout"},
		{name: "negative timeout", edit: func(c *Config) { c.Servers[0].IdleTimeout = Duration{-time.Second} }, err: "is not a timeout"},

		{name: "port max", edit: func(c *Config) { c.Hosts[0].Port = 65535 }},
		{name: "port none", edit: func(c *Config) { c.Hosts[0].Port = 0 }},
		{name: "port negative", edit: func(c *Config) { c.Hosts[0].Port = -1 }, err: "host.port: -1 is not a port"},
		{name: "port big", edit: func(c *Config) { c.Hosts[0].Port = 65536 }, err: "host.port: 65536 is not a port"},
		{name: "restart empty arg", edit: func(c *Config) { c.Hosts[0].Restart = []string{""} }, err: "host.restart[0]: empty argument"},
		{name: "no restart", edit: func(c *Config) { c.Hosts[0].Restart = nil }},
		{name: "auto restart without argv", edit: func(c *Config) {
			c.Hosts[0].Restart, c.Hosts[0].AutoRestart = nil, true
		}, err: "host.auto_restart: true, but host.restart is empty"},

		{name: "relative log", edit: func(c *Config) { c.Hosts[0].Logs = []string{"logs/*.log"} }, err: `host.logs[0]: "logs/*.log" is relative`},
		{name: "empty log", edit: func(c *Config) { c.Servers[0].Logs = []string{""} }, err: "server[0].logs[0]: empty"},
		{name: "bad glob", edit: func(c *Config) { c.Hosts[0].Logs = []string{"/x/[.log"} }, err: "is not a valid glob"},
		{name: "tilde user", edit: func(c *Config) { c.Hosts[0].ClientModule = "~bob/index.js" }, err: "host.client_module: \"~bob/index.js\" is relative"},
		{name: "var path", edit: func(c *Config) { c.Servers[0].Store = "${XDG_CONFIG_HOME}/s.json" }},
		{name: "relative store", edit: func(c *Config) { c.Servers[0].Store = "s.json" }, err: "server[0].store: \"s.json\" is relative"},
		{name: "relative state dir", edit: func(c *Config) { c.StateDir = "state" }, err: "state_dir: \"state\" is relative"},

		{name: "headers ok", edit: func(c *Config) {
			c.Servers[0].Headers = map[string]string{"Authorization": "Bearer ${TOKEN}", "X-NMEM-API-Key": "k"}
		}},
		{name: "header name space", edit: func(c *Config) { c.Servers[0].Headers = map[string]string{"X Y": "1"} }, err: `server[0].headers."X Y": "X Y" is not a header name`},
		{name: "header name empty", edit: func(c *Config) { c.Servers[0].Headers = map[string]string{"": "1"} }, err: `"" is not a header name`},
		{name: "header name colon", edit: func(c *Config) { c.Servers[0].Headers = map[string]string{"X:Y": "1"} }, err: "is not a header name"},
		{name: "reserved header", edit: func(c *Config) { c.Servers[0].Headers = map[string]string{"mcp-session-id": "1"} }, err: "set by the watchdog itself"},
		{name: "repeated header", edit: func(c *Config) {
			c.Servers[0].Headers = map[string]string{"X-Key": "1", "x-key": "2"}
		}, err: `server[0].headers.x-key: repeats "X-Key"`},
		{name: "header value newline", edit: func(c *Config) {
			c.Servers[0].Headers = map[string]string{"X-Key": "secret\nX-Evil: 1"}
		}, err: "control character"},
		{name: "header bad var", edit: func(c *Config) { c.Servers[0].Headers = map[string]string{"X-Key": "${NO"} }, err: "unterminated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Default()
			tt.edit(&c)
			err := c.Validate()
			if tt.err == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate passed, want %q", tt.err)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error does not wrap ErrInvalid: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "config: ") || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %q, want \"config: \" and %q", err, tt.err)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error prints a header value: %v", err)
			}
		})
	}
}

// Validation of a loaded file points at the line of the key, or of its
// table when the key came from the defaults.
func TestValidateLineFallback(t *testing.T) {
	doc := "[[server]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/mcp\"\n\n[[server]]\nurl = \"http://127.0.0.1:2/mcp\"\n"
	_, err := parse("f.toml", []byte(doc), testEnv(nil))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want an *Error", err)
	}
	if e.File != "f.toml" || e.Line != 5 || e.Key != "server[1].name" {
		t.Fatalf("got %+v, want f.toml line 5 (the [[server]] header) key server[1].name", e)
	}
}
