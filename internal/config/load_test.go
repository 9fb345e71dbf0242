package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const testHome = "/home/tester"

// testEnv is a fixed environment: HOME is testHome and only vars are set.
func testEnv(vars map[string]string) environ {
	return environ{
		getenv: func(k string) string { return vars[k] },
		home:   func() (string, error) { return testHome, nil },
	}
}

var fixtureVars = map[string]string{
	"LOGROOT":    "/var/log/dsh",
	"WD_STATE":   "/srv/state",
	"NMEM_TOKEN": "s3cret-token",
	"TOKEN":      "s3cret-token",
}

// plain drops what Load keeps for error positions, so configs compare.
func plain(c Config) Config {
	c.index, c.hostTables = nil, false
	return c
}

func h(home string) string { return filepath.Join(testHome, home) }

// Long: a table of 31 cases.
func TestParseFixtures(t *testing.T) {
	def := Default()
	expandedDefault := Default()
	if err := expandedDefault.expandPaths(testEnv(nil)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file string
		want func(c *Config) // edits expandedDefault into the expected config; nil: no check
		// errors: every substring must appear; nothing else is checked
		errs []string
		// absent: substrings that must not appear in the error
		absent []string
	}{
		{file: "full.toml", want: func(c *Config) {
			*c = Config{
				Path:          "testdata/full.toml",
				StateDir:      h("state/watchdog"),
				Notify:        false,
				MetricsListen: "127.0.0.1:9464",
				Hosts: []Host{{
					Name: "DSH", ClientName: "dsh-mcp-client",
					Logs:    []string{h(".dsh/logs/*.log"), "/var/log/dsh/dsh-*.log"},
					Process: "dsh", Port: 3081,
					Restart:      []string{"dsh", "web", "--port", "3081"},
					AutoRestart:  true,
					ClientModule: h("lib/node_modules/@deepseek-ai/dsh-mcp-client/lib/index.js"),
				}},
				Servers: []Server{{
					Name: "nowledge-mem", URL: "http://127.0.0.1:14242/mcp",
					Logs:        []string{h(".local/share/co.nowledge.mem.desktop/logs/*.log")},
					Store:       h(".config/co.nowledge.mem.desktop/mcp-sessions.json"),
					IdleTimeout: Duration{6 * time.Hour}, KeepWarm: false,
					// Header values stay unexpanded until ExpandedHeaders.
					Headers: map[string]string{"Authorization": "Bearer ${NMEM_TOKEN}", "X-NMEM-API-Key": "${NMEM_TOKEN}"},
				}, {
					Name: "remote.tools", URL: "https://mcp.example.com/mcp",
					IdleTimeout: Duration{90 * time.Second}, KeepWarm: true,
					Headers: map[string]string{"X-Team": "watchdog"},
				}},
			}
		}},
		{file: "minimal.toml", want: func(c *Config) {
			c.Path = "testdata/minimal.toml"
			c.Servers = []Server{{Name: "local", URL: "http://localhost:8080/mcp",
				IdleTimeout: Duration{12 * time.Hour}, KeepWarm: true}}
		}},
		{file: "empty.toml", want: func(c *Config) { c.Path = "testdata/empty.toml" }},
		{file: "comments_only.toml", want: func(c *Config) { c.Path = "testdata/comments_only.toml" }},
		{file: "host_partial.toml", want: func(c *Config) {
			c.Path = "testdata/host_partial.toml"
			c.Hosts[0].Port = 4000
			c.Hosts[0].Logs = []string{"/var/log/dsh/*.log"}
		}},
		{file: "no_servers.toml", want: func(c *Config) {
			c.Path = "testdata/no_servers.toml"
			c.Servers = []Server{}
		}},
		{file: "inline_servers.toml", want: func(c *Config) {
			c.Path = "testdata/inline_servers.toml"
			c.Servers = []Server{
				{Name: "a", URL: "http://127.0.0.1:1/mcp", IdleTimeout: Duration{12 * time.Hour}, KeepWarm: true},
				{Name: "b", URL: "http://[::1]:2/mcp", IdleTimeout: Duration{12 * time.Hour}, KeepWarm: false},
			}
		}},
		{file: "url_plain_http_allowed.toml", want: nil},
		{file: "metrics_ipv6.toml", want: func(c *Config) {
			c.Path = "testdata/metrics_ipv6.toml"
			c.MetricsListen = "[::1]:9464"
		}},
		{file: "expand.toml", want: func(c *Config) {
			c.Path = "testdata/expand.toml"
			c.StateDir = "/srv/state/watchdog"
			c.Hosts[0].Logs = []string{h(".dsh/logs/*.log"), "/var/log/dsh/*.log"}
			c.Hosts[0].Restart = []string{"~/bin/dsh", "${NOT_EXPANDED}"} // argv: as written
			c.Hosts[0].ClientModule = testHome
			c.Servers = []Server{{Name: "a", URL: "http://127.0.0.1:1/mcp",
				Store:       h(".config/co.nowledge.mem.desktop/mcp-sessions.json"),
				IdleTimeout: Duration{12 * time.Hour}, KeepWarm: true,
				Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}}
		}},

		{file: "malformed.toml", errs: []string{"testdata/malformed.toml:4:", "malformed TOML"}},
		{file: "duplicate_key.toml", errs: []string{"testdata/duplicate_key.toml:2:", "notify"}},
		{file: "unknown_top.toml", errs: []string{
			"testdata/unknown_top.toml:2: notfy: unknown key at the top level; did you mean notify?",
			"known keys: state_dir, notify, metrics_listen, [host], [[server]]"}},
		{file: "unknown_host.toml", errs: []string{
			"testdata/unknown_host.toml:5: host.nmae: unknown key in [host]; did you mean name?"}},
		{file: "unknown_server.toml", errs: []string{
			"testdata/unknown_server.toml:8: server[1].idle_timout: unknown key in [[server]]; did you mean idle_timeout?"}},
		{file: "unknown_inline.toml", errs: []string{
			"testdata/unknown_inline.toml:2: server[1].kep_warm: unknown key in [[server]]; did you mean keep_warm?"}},
		{file: "unknown_table.toml", errs: []string{
			"testdata/unknown_table.toml:3: hots: unknown table at the top level; did you mean host?"}},
		{file: "unknown_many.toml", errs: []string{
			"testdata/unknown_many.toml:1: alpha: unknown key",
			"testdata/unknown_many.toml:3: host.beta: unknown key in [host]"}},
		{file: "bad_type.toml", errs: []string{
			"testdata/bad_type.toml:3:", "host.port: a TOML string cannot go here; port takes a whole number"}},
		{file: "bad_type_list.toml", errs: []string{
			"testdata/bad_type_list.toml:2:", "host.restart: a TOML string cannot go here; restart takes a list of strings"}},
		{file: "bad_duration.toml", errs: []string{
			"testdata/bad_duration.toml:4:", `server[0].idle_timeout: "12 hours" is not a duration`, `"12h"`}},
		{file: "bad_duration_int.toml", errs: []string{
			"testdata/bad_duration_int.toml:4: server[0].idle_timeout: a duration is written in quotes"}},
		{file: "bad_url.toml", errs: []string{
			`testdata/bad_url.toml:7: server[1].url: "ftp://x" is not an http(s) URL; use http://host:port/path`}},
		{file: "url_credentials.toml", errs: []string{
			"testdata/url_credentials.toml:3: server[0].url: credentials in the URL"}, absent: []string{"hunter2"}},
		// Measurement D of issue 15: a URL that does not parse was echoed
		// whole, credentials included.
		{file: "url_unparseable_credentials.toml", errs: []string{
			"testdata/url_unparseable_credentials.toml:3: server[0].url: does not parse: http://127.0.0.1:1/…: invalid URL escape \"%zz\""},
			absent: []string{"hunter2", "hunter3", "admin"}},
		{file: "url_query_token.toml", errs: []string{
			`testdata/url_query_token.toml:3: server[0].url: "ftp://127.0.0.1:1/mcp?token=REDACTED" is not an http(s) URL`},
			absent: []string{"hunter3"}},
		{file: "url_plain_http.toml", errs: []string{
			"testdata/url_plain_http.toml:3: server[0].url: plain http to 192.168.1.20", "allow_insecure = true"}},
		{file: "dup_names.toml", errs: []string{
			`testdata/dup_names.toml:6: server[1].name: "Mem" is already the name of server[0]`}},
		{file: "bad_names.toml", errs: []string{
			"testdata/bad_names.toml:1: server[0].name: missing",
			`testdata/bad_names.toml:5: server[1].name: "../etc" is not a usable name`,
			`testdata/bad_names.toml:9: server[2].name: ".." is not a usable name`}},
		{file: "metrics_public.toml", errs: []string{
			`testdata/metrics_public.toml:1: metrics_listen: "0.0.0.0:9464" is not a loopback address`}},
		{file: "bad_values.toml", errs: []string{
			`bad_values.toml:1: state_dir: "relative/state" is relative`,
			"bad_values.toml:4: host.port: 70000 is not a port",
			"bad_values.toml:5: host.restart[1]: empty argument",
			`bad_values.toml:6: host.logs[0]: "/logs/[a.log" is not a valid glob`,
			"bad_values.toml:11: server[0].idle_timeout: -5m0s is not a timeout",
			`bad_values.toml:12: server[0].headers."Bad Name": "Bad Name" is not a header name`,
			"bad_values.toml:12: server[0].headers.Mcp-Session-Id: set by the watchdog itself",
			`bad_values.toml:12: server[0].headers.Auth: unterminated "${"`,
		}},
		{file: "auto_restart_empty.toml", errs: []string{
			"auto_restart_empty.toml:3: host.auto_restart: true, but host.restart is empty"}},
		{file: "expand_unset.toml", errs: []string{
			"testdata/expand_unset.toml:4: server[0].store: ${WATCHDOG_TEST_UNSET} is not set"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			c, err := load(filepath.Join("testdata", tt.file), testEnv(fixtureVars))
			if tt.errs == nil {
				if err != nil {
					t.Fatalf("load: %v", err)
				}
				if tt.want == nil {
					return
				}
				want := expandedDefault
				want.Servers = append([]Server(nil), def.Servers...)
				want.Servers[0].Logs = append([]string(nil), expandedDefault.Servers[0].Logs...)
				want.Hosts = []Host{expandedDefault.Hosts[0]}
				want.Hosts[0].Logs = append([]string(nil), expandedDefault.Hosts[0].Logs...)
				tt.want(&want)
				if got := plain(c); !reflect.DeepEqual(got, want) {
					t.Fatalf("config mismatch\n got %+v\nwant %+v", got, want)
				}
				return
			}
			if err == nil {
				t.Fatalf("load succeeded, want an error containing %q", tt.errs)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error does not wrap ErrInvalid: %v", err)
			}
			for _, s := range tt.errs {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error lacks %q:\n%v", s, err)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error contains %q:\n%v", s, err)
				}
			}
		})
	}
}

// A missing file at the default path means the defaults; the user's config
// dir is pointed at an empty temp dir.
func TestLoadMissingDefaultFile(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	c, err := Load("")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := Default()
	want.Hosts[0].Logs = []string{filepath.Join(home, ".dsh/logs/*.log")}
	for i, l := range want.Servers[0].Logs {
		want.Servers[0].Logs[i] = filepath.Join(home, l[2:])
	}
	if got := plain(c); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if c.Path != "" {
		t.Errorf("Path = %q, want empty for built-in defaults", c.Path)
	}
}

func TestLoadDefaultPathFile(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	path, err := DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, filepath.Join("mcp-watchdog", "config.toml")) {
		t.Errorf("DefaultPath = %q", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("notify = false\nbogus = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load("")
	if err == nil || !strings.Contains(err.Error(), path+":2: bogus: unknown key") {
		t.Fatalf("Load(\"\") = %v, want the unknown key in %s", err, path)
	}
}

func TestLoadMissingExplicitFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.toml")
	_, err := Load(path)
	if err == nil {
		t.Fatal("Load of a missing explicit file succeeded")
	}
	if !errors.Is(err, ErrInvalid) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v should wrap ErrInvalid and fs.ErrNotExist", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file", err)
	}
}

func TestLoadTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.toml")
	if err := os.WriteFile(path, make([]byte, maxFileSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "64 KiB") {
		t.Fatalf("Load = %v, want a size error", err)
	}
}

func TestManyUnknownKeysAreCapped(t *testing.T) {
	var b strings.Builder
	for i := range 50 {
		b.WriteString("k" + strings.Repeat("x", i) + " = 1\n")
	}
	_, err := parse("big.toml", []byte(b.String()), testEnv(nil))
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if n := strings.Count(msg, "unknown key"); n != maxReported {
		t.Errorf("%d unknown keys reported, want %d", n, maxReported)
	}
	if !strings.Contains(msg, "and 30 more problems") || !errors.Is(err, ErrInvalid) {
		t.Errorf("missing the remainder note or ErrInvalid: %v", err)
	}
}

// Small documents whose errors need the right key and words.
func TestParseErrorMessages(t *testing.T) {
	tests := []struct {
		doc  string
		want string
	}{
		{"a.b.c = 1\n", "t.toml:1: a.b.c: unknown key at the top level"},
		{"[[server]]\n[[server.x]]\n", "t.toml:2: server[0].x: unknown table in [[server]]"},
		{"server = {name='a'}\n", "server: a TOML inline table cannot go here; server takes tables"},
		{"notify = 1979-05-27\n", "notify: a TOML local date cannot go here; notify takes true or false"},
		{"[host.logs]\n", "host.logs: cannot store a table in a string; logs takes a list of strings"},
		{"[[server]]\nheaders.A = 1\n", "t.toml:2:13: server[0].headers.A: a TOML integer cannot go here; A takes a string"},
		{"[[server]]\nidle_timeout = true\n", "t.toml:2: server[0].idle_timeout: a duration is written in quotes"},
		{"[[server]]\nidle_timeout = [1]\n", "server[0].idle_timeout: a TOML array cannot go here; idle_timeout takes a duration in quotes"},
		{"\xff = 1\n", "t.toml:1:1: malformed TOML: invalid character"},
		{"notify = true\n\n[host\n", "t.toml:3:"},
		{"[host]\nport = 99999999999999999999\n", "t.toml:2:8: host.port:"},
	}
	for _, tt := range tests {
		_, err := parse("t.toml", []byte(tt.doc), testEnv(nil))
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parse(%q) = %v\nwant an ErrInvalid error containing %q", tt.doc, err, tt.want)
		}
	}
}

func TestLoadDirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), dir+": cannot be read") {
		t.Fatalf("Load(dir) = %v, want an ErrInvalid read error naming %s", err, dir)
	}
}
