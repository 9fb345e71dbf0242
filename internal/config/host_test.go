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
	if got := Default().Host; !reflect.DeepEqual(got, want) {
		t.Fatalf("default host =\n%+v\nwant\n%+v", got, want)
	}
	if got := Default().Host.Profile(); !reflect.DeepEqual(got, host.DSH()) {
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
		want.Host.Name = c.Host.Name
		if !reflect.DeepEqual(c.Host, want.Host) {
			t.Errorf("%q: host =\n%+v\nwant\n%+v", table, c.Host, want.Host)
		}
		if p := c.Host.Profile(); !reflect.DeepEqual(p, host.DSH()) {
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
	if p := c.Host.Profile(); p.Name != "Claude Code" || c.Host.ClientName != "claude-code" || p.Patchable() {
		t.Errorf("claude-code: profile %q, client %q, patchable %v", p.Name, c.Host.ClientName, p.Patchable())
	}
	_, err = parse("config.toml", []byte("[host]\nname = \"Zed\"\n"), testEnv(nil))
	for _, want := range []string{"config.toml:2", "host.name", `"Zed"`, "Claude Code", "Gemini CLI", "client_name"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("unknown host: %v; want it to say %q", err, want)
		}
	}
	c, err = parse("config.toml", []byte("[host]\nname = \"Zed\"\nclient_name = \"zed\"\n"), testEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Host.Profile(); p.Name != "Zed" || p.ClientName != "zed" || p.OnLoss != host.Stuck || p.Patchable() {
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
