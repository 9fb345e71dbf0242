package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/host/judge"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/proxyproc"
)

// TestProtectFromTheTray: the tray's Protect adopts the host (its file now
// names the proxy, the watchdog's config has it) and journals the outcome,
// host named, for the notifier to tell; the hosts look then says "proxy
// down" until the next run serves the proxy, and proxied once it does.
func TestProtectFromTheTray(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	file := filepath.Join(home, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"mcpServers": {"mem": {"url": "http://127.0.0.1:14242/mcp"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(dir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Home: home, ConfigFile: filepath.Join(dir, "config.toml")}
	o.fill()
	d := newDaemon(config.Default(), dir, "", o, j)
	d.protectFromTray(t.Context(), "Cursor")
	d.face.work.Wait()
	d.tellAdoptions() // as the record's watcher hands the loop its change
	d.tellAdoptions() // told once
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := journal.ReadTail(dir, 1<<20)
	if err != nil || len(recs) != 1 {
		t.Fatalf("journal %+v, %v", recs, err)
	}
	r := recs[0]
	if r.Kind != health.EvHostAdopted || r.Extra["host"] != "Cursor" || !strings.Contains(r.Detail, "servers mem go through the watchdog's proxy") ||
		!strings.Contains(r.Detail, "restart Cursor") {
		t.Fatalf("journaled %+v", r)
	}
	cfg, err := config.Load(o.ConfigFile)
	if err != nil || cfg.Servers[0].ProxyListen == "" {
		t.Fatalf("the watchdog's config after Protect: %+v %v", cfg.Servers, err)
	}
	d.cfg = cfg // as the next run has it
	found := find.Discover(t.Context(), find.Options{Home: home, GOOS: "linux"})
	d.noteHosts(found)
	if len(d.face.found) != 1 || d.face.found[0].Servers[0].Protection != string(judge.ProxyDown) {
		t.Fatalf("hosts after Protect, the proxy not served yet: %+v", d.face.found)
	}
	secret, err := proxy.LoadSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	d.proxies = proxyproc.NewSet(secret)
	p, err := proxy.New(proxy.Options{Server: cfg.Servers[0].Name, Upstream: cfg.Servers[0].URL, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	d.proxies.Put(cfg.Servers[0].Name, p, "") // as the next run serves it
	d.noteHosts(found)
	if d.face.found[0].Servers[0].Protection != string(judge.Proxied) {
		t.Fatalf("hosts with the proxy served: %+v", d.face.found)
	}
}
