package adopt

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/host"
)

// watchedNames are the hosts the config at path watches, as the daemon
// loads it.
func watchedNames(t *testing.T, path string) []string {
	t.Helper()
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("the config adopt wrote does not load: %v\n%s", err, read(t, path))
	}
	var out []string
	for _, h := range cfg.Hosts {
		out = append(out, h.Name)
	}
	return out
}

// Long: a table of config shapes, each with two hosts adopted and released.
// TestAdoptMakesTheHostWatched: adopting a host the watchdog does not
// watch adds a [[host]] table for it, inside the transaction and its
// record, keeping the hosts the config watched before (the default one
// where it named none; a lone [host] table becomes [[host]]); releasing
// each host takes its table out once nothing of it stays adopted, and
// the last release gives the config back byte for byte.
func TestAdoptMakesTheHostWatched(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, config string
		before       []string
	}{
		{"no host table", "notify = false\n", []string{"DSH"}},
		{"a lone [host] table", "notify = false\n\n[host]  # the one I use\nname = \"Claude Code\"\n", []string{"Claude Code"}},
		{"[[host]] tables", "[[host]]\nname = \"DSH\"\n\n[[host]]\nname = \"Cursor\"\n", []string{"DSH", "Cursor"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			oc, _ := fixture(t, "opencode.jsonc", "opencode.jsonc")
			cp, _ := fixture(t, "copilot-mcp-config.json", ".copilot/mcp-config.json")
			r := newRig(t, host.Opencode(), oc)
			if err := os.MkdirAll(filepath.Dir(r.o.ConfigPath), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(r.o.ConfigPath, []byte(tt.config), 0o600); err != nil {
				t.Fatal(err)
			}
			copilot := r.o
			copilot.Host, copilot.Files = host.CopilotCLI(), []string{cp}
			for _, o := range []Options{r.o, copilot} {
				if res, err := Adopt(t.Context(), o); err != nil || !res.Changed {
					t.Fatalf("adopt %s: %v %+v", o.Host.Name, err, res)
				}
				agree(t, o)
			}
			want := append(slices.Clone(tt.before), "opencode", "Copilot CLI")
			if got := watchedNames(t, r.o.ConfigPath); !slices.Equal(got, want) {
				t.Fatalf("adopted, the config watches %q; want %q:\n%s", got, want, read(t, r.o.ConfigPath))
			}
			if _, err := Release(t.Context(), r.o); err != nil {
				t.Fatal(err)
			}
			agree(t, r.o)
			want = append(slices.Clone(tt.before), "Copilot CLI")
			if got := watchedNames(t, r.o.ConfigPath); !slices.Equal(got, want) {
				t.Fatalf("opencode released, the config watches %q; want %q:\n%s", got, want, read(t, r.o.ConfigPath))
			}
			if _, err := Release(t.Context(), copilot); err != nil {
				t.Fatal(err)
			}
			agree(t, copilot)
			if got := read(t, r.o.ConfigPath); !bytes.Equal(got, []byte(tt.config)) {
				t.Fatalf("all released, the config is not back as it was:\n%s", got)
			}
		})
	}
}

// TestAdoptingAWatchedHostAddsNoTable: DSH is the host a config without
// host tables watches; adopting it adds no [[host]] table.
func TestAdoptingAWatchedHostAddsNoTable(t *testing.T) {
	t.Parallel()
	path, _ := fixture(t, "dsh-cordis.yml", "cordis.yml")
	r := newRig(t, host.DSH(), path)
	if _, err := Adopt(t.Context(), r.o); err != nil {
		t.Fatal(err)
	}
	if got := watchedNames(t, r.o.ConfigPath); !slices.Equal(got, []string{"DSH"}) {
		t.Fatalf("the config watches %q, want DSH alone", got)
	}
	if rec, _, _ := loadRecord(r.o.StateDir); len(rec.Watched) != 0 {
		t.Fatalf("the record says adopt added host tables: %+v", rec.Watched)
	}
}
