package config

import (
	"reflect"
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
// gets its profile's defaults for them, whatever the name says (an unknown
// name is the default host renamed).
func TestHostTableStartsFromItsProfile(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"DSH", "dsh", "DSH at work"} {
		c, err := parse("config.toml", []byte("[host]\nname = \""+name+"\"\n"), testEnv(nil))
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		want := Default()
		if err := want.expandPaths(testEnv(nil)); err != nil {
			t.Fatal(err)
		}
		want.Host.Name = name
		if !reflect.DeepEqual(c.Host, want.Host) {
			t.Errorf("%q: host =\n%+v\nwant\n%+v", name, c.Host, want.Host)
		}
		if p := c.Host.Profile(); !reflect.DeepEqual(p, host.DSH()) {
			t.Errorf("%q: Profile() = %+v, want DSH's", name, p)
		}
	}
}

// TestDisplayName: messages name the host as host.name says, and by its
// profile's name when host.name is set empty.
func TestDisplayName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{"": "DSH", "DSH": "DSH", "DSH at work": "DSH at work"} {
		if got := (Host{Name: name}).DisplayName(); got != want {
			t.Errorf("DisplayName(%q) = %q, want %q", name, got, want)
		}
	}
}
