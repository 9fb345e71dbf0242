package adopt

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/host"
)

func foundServer(name, url string) config.Server {
	return config.Server{Name: name, URL: url, IdleTimeout: config.Duration{Duration: config.DefaultIdleTimeout}, KeepWarm: true}
}

// TestAdoptWritesTheMachineAsFound: where there is no config, adopt
// writes what no file meant, the machine as found (Options.Machine), with
// the adopted server's proxy, never the built-in DSH and Nowledge Mem; the
// adopted host gets a table when the machine had none; release removes
// the file adopt made. A machine that cannot be looked at changes nothing.
func TestAdoptWritesTheMachineAsFound(t *testing.T) {
	t.Parallel()
	gemini := config.HostOf(host.GeminiCLI())
	for _, tt := range []struct {
		name    string
		machine *config.Config
		hosts   []string
		servers []string // name, + when through a proxy
	}{
		{"no machine given", nil, []string{"Cursor"}, []string{"cursor-mem+", "cursor-linear+"}},
		{"nothing found", &config.Config{}, []string{"Cursor"}, []string{"cursor-mem+", "cursor-linear+"}},
		{"another host found", &config.Config{Hosts: []config.Host{gemini}, Servers: []config.Server{foundServer("notes", "http://127.0.0.1:9002/mcp")}},
			[]string{"Gemini CLI", "Cursor"}, []string{"notes", "cursor-mem+", "cursor-linear+"}},
		{"the adopted host found", &config.Config{Hosts: []config.Host{config.HostOf(host.Cursor()), gemini},
			Servers: []config.Server{foundServer("mem", "http://127.0.0.1:14242/mcp"), foundServer("notes", "http://127.0.0.1:9002/mcp")}},
			[]string{"Cursor", "Gemini CLI"}, []string{"mem+", "notes", "cursor-linear+"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path, orig := fixture(t, "cursor.json", "mcp.json")
			r := newRig(t, host.Cursor(), path)
			if tt.machine != nil {
				r.o.Machine = func(context.Context) (config.Config, error) { return *tt.machine, nil }
			}
			if _, err := Adopt(t.Context(), r.o); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(r.o.ConfigPath)
			if err != nil {
				t.Fatalf("the config adopt wrote does not load: %v", err)
			}
			var servers []string
			for _, s := range cfg.Servers {
				servers = append(servers, s.Name+map[bool]string{true: "+"}[s.ProxyListen != ""])
			}
			if got := watchedNames(t, r.o.ConfigPath); !slices.Equal(got, tt.hosts) || !slices.Equal(servers, tt.servers) {
				t.Fatalf("the config adopt wrote watches %q and %q; want %q and %q:\n%s", got, servers, tt.hosts, tt.servers, read(t, r.o.ConfigPath))
			}
			if text := string(read(t, r.o.ConfigPath)); strings.Contains(text, "DSH") || strings.Contains(text, "nowledge") || strings.Contains(text, r.o.Secret) {
				t.Fatalf("the config adopt wrote names what is not on the machine, or the secret:\n%s", text)
			}
			if _, err := Release(t.Context(), r.o); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(read(t, path), orig) {
				t.Fatal("release did not give Cursor's file back")
			}
			if _, err := os.Stat(r.o.ConfigPath); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the config adopt made is still there after release: %v", err)
			}
		})
	}
}

// TestAdoptWithoutTheMachine: when the machine as found cannot be made,
// adopt says so and writes nothing.
func TestAdoptWithoutTheMachine(t *testing.T) {
	t.Parallel()
	path, orig := fixture(t, "cursor.json", "mcp.json")
	r := newRig(t, host.Cursor(), path)
	r.o.Machine = func(context.Context) (config.Config, error) { return config.Config{}, errors.New("no look") }
	if _, err := Adopt(t.Context(), r.o); err == nil || !strings.Contains(err.Error(), "no look") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("adopt: %v", err)
	}
	if _, err := os.Stat(r.o.ConfigPath); !errors.Is(err, os.ErrNotExist) || !slices.Equal(read(t, path), orig) {
		t.Fatalf("adopt wrote with no machine to write: %v", err)
	}
}
