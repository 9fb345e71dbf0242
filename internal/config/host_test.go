package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// TestDefaultHost: the [host] defaults come from the DSH profile and are
// exactly the ones the config had before the profile existed.
func TestDefaultHost(t *testing.T) {
	t.Parallel()
	want := Host{
		Name:       "DSH",
		ClientName: "dsh-mcp-client",
		Logs:       []string{"~/.dsh/logs/*.log"},
		Process:    "dsh",
		Port:       3080,
		Restart:    []string{"dsh", "web"},
	}
	if got := Default().Hosts[0]; !reflect.DeepEqual(got, want) {
		t.Fatalf("default host =\n%+v\nwant\n%+v", got, want)
	}
	if got := Default().Hosts[0].Profile(); !reflect.DeepEqual(got, host.DSH()) {
		t.Errorf("Profile() = %+v, want DSH's", got)
	}
}

// TestHostTableStartsFromItsProfile: a [host] table that leaves keys out
// gets its profile's defaults for them: the profile its name names, or the
// one whose client its client_name is (a known host renamed).
func TestHostTableStartsFromItsProfile(t *testing.T) {
	t.Parallel()
	for _, table := range []string{`name = "DSH"`, `name = "dsh"`, "name = \"DSH at work\"\nclient_name = \"dsh-mcp-client\""} {
		c, err := parse("config.toml", []byte("[host]\n"+table+"\n"), testEnv(nil))
		if err != nil {
			t.Fatalf("%q: %v", table, err)
		}
		want := Default()
		if err := want.expandPaths(testEnv(nil)); err != nil {
			t.Fatal(err)
		}
		want.Hosts[0].Name = c.Hosts[0].Name
		if !reflect.DeepEqual(c.Hosts[0], want.Hosts[0]) {
			t.Errorf("%q: host =\n%+v\nwant\n%+v", table, c.Hosts[0], want.Hosts[0])
		}
		if p := c.Hosts[0].Profile(); !reflect.DeepEqual(p, host.DSH()) {
			t.Errorf("%q: Profile() = %+v, want DSH's", table, p)
		}
	}
}

// TestHostNames: another known host starts from its own profile; an
// unknown name is an error that lists the known ones, unless client_name
// makes it a host of the user's own.
func TestHostNames(t *testing.T) {
	t.Parallel()
	c, err := parse("config.toml", []byte("[host]\nname = \"claude-code\"\n"), testEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Hosts[0].Profile(); p.Name != "Claude Code" || c.Hosts[0].ClientName != "claude-code" || p.Patchable() {
		t.Errorf("claude-code: profile %q, client %q, patchable %v", p.Name, c.Hosts[0].ClientName, p.Patchable())
	}
	_, err = parse("config.toml", []byte("[host]\nname = \"Acme\"\n"), testEnv(nil))
	for _, want := range []string{"config.toml:2", "host.name", `"Acme"`, "Claude Code", "Gemini CLI", "client_name"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("unknown host: %v; want it to say %q", err, want)
		}
	}
	c, err = parse("config.toml", []byte("[host]\nname = \"Acme\"\nclient_name = \"acme-client\"\n"), testEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Hosts[0].Profile(); p.Name != "Acme" || p.ClientName != "acme-client" || p.Behaviour.HealsAny() || p.Patchable() {
		t.Errorf("custom host: %+v", p)
	}
}

// TestDisplayName: messages name the host as host.name says.
func TestDisplayName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{"DSH": "DSH", "DSH at work": "DSH at work"} {
		if got := (Host{Name: name, ClientName: "dsh-mcp-client"}).DisplayName(); got != want {
			t.Errorf("DisplayName(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestHostTables: [[host]] tables watch several hosts, each starting from
// its own profile's defaults; the main host is the one whose client takes
// the patch, wherever it stands.
func TestHostTables(t *testing.T) {
	t.Parallel()
	doc := "[[host]]\nname = \"Claude Code\"\n\n[[host]]\nname = \"DSH\"\nport = 4000\n\n[[host]]\nname = \"Acme\"\nclient_name = \"acme-client\"\n"
	c, err := parse("config.toml", []byte(doc), testEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Hosts) != 3 {
		t.Fatalf("hosts: %+v", c.Hosts)
	}
	cc, dsh, acme := c.Hosts[0], c.Hosts[1], c.Hosts[2]
	if cc.ClientName != "claude-code" || cc.Process != host.ClaudeCode().Process || cc.Port != 0 {
		t.Errorf("Claude Code's table: %+v, want its profile's defaults", cc)
	}
	if dsh.ClientName != "dsh-mcp-client" || dsh.Port != 4000 || dsh.Process != "dsh" || len(dsh.Restart) == 0 {
		t.Errorf("DSH's table: %+v, want DSH's defaults with port 4000", dsh)
	}
	if acme.ClientName != "acme-client" || acme.Process != "" || acme.Profile().Behaviour.HealsAny() {
		t.Errorf("custom host: %+v", acme)
	}
	if got := c.MainHost().Name; got != "DSH" {
		t.Errorf("MainHost = %q, want DSH (its client takes the patch)", got)
	}
	if got := c.HostKey(2); got != "host[2]" {
		t.Errorf("HostKey(2) = %q", got)
	}
	one, err := parse("config.toml", []byte("[host]\nname = \"Cursor\"\n"), testEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if one.MainHost().Name != "Cursor" || one.HostKey(0) != "host" {
		t.Errorf("a lone [host]: main %q, key %q", one.MainHost().Name, one.HostKey(0))
	}
}

// TestHostTableErrors: each [[host]] table's problems name it by index and
// line; two tables for one host or one client are refused.
func TestHostTableErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"unknown key", "[[host]]\nname = \"DSH\"\n\n[[host]]\nname = \"Cursor\"\nproces = \"x\"\n",
			[]string{"config.toml:6", "host[1].proces", "unknown key in [[host]]", "did you mean process?"}},
		{"bad port", "[[host]]\nname = \"DSH\"\n\n[[host]]\nname = \"Cursor\"\nport = 70000\n",
			[]string{"config.toml:6", "host[1].port: 70000 is not a port"}},
		{"same host twice", "[[host]]\nname = \"Claude Code\"\n\n[[host]]\nname = \"claude-code\"\n",
			[]string{"config.toml:5", `host[1].name: "claude-code" is already the name of host[0]`}},
		{"same client twice", "[[host]]\nname = \"DSH\"\n\n[[host]]\nname = \"DSH at work\"\nclient_name = \"dsh-mcp-client\"\n",
			[]string{"config.toml:6", `host[1].client_name: "dsh-mcp-client" is already the client of host[0]`}},
		{"unknown host", "[[host]]\nname = \"DSH\"\n\n[[host]]\nname = \"Acme\"\n",
			[]string{"config.toml:5", `host[1].name: "Acme" is not a host the watchdog knows`, "Gemini CLI", "client_name"}},
		{"auto restart", "[[host]]\nname = \"Cursor\"\nauto_restart = true\n",
			[]string{"config.toml:3", "host[0].auto_restart: true, but host[0].restart is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parse("config.toml", []byte(tt.doc), testEnv(nil))
			for _, want := range tt.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v; want it to say %q", err, want)
				}
			}
		})
	}
}

// TestOneShotHostsAreNeverRestarted: a host run per prompt has nothing to
// restart, and a config that asks for it says so.
func TestOneShotHostsAreNeverRestarted(t *testing.T) {
	t.Parallel()
	_, err := parse("config.toml", []byte("[[host]]\nname = \"Copilot CLI\"\nrestart = [\"copilot\"]\n"), testEnv(nil))
	if err == nil || !strings.Contains(err.Error(), "host[0].restart") || !strings.Contains(err.Error(), "one process per prompt") {
		t.Fatalf("restart for a one-shot host: %v; want an error naming host[0].restart", err)
	}
	c, err := parse("config.toml", []byte("[[host]]\nname = \"opencode\"\n"), testEnv(nil))
	if err != nil || len(c.Hosts[0].Restart) != 0 || c.Hosts[0].ClientName != "opencode" || c.Hosts[0].Process != "opencode" {
		t.Fatalf("opencode's table: %+v, %v", c.Hosts, err)
	}
}
