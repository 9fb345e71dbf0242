package hosts

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/adopt"
	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tailbuf"
)

// Watchdog is the daemon, run in the test's process, watching the rig's
// server (and its host, when the config says so).
type Watchdog struct {
	State  string // its state dir: the journal, the proxy's secret
	Proxy  string // the proxy's listen address; "" when none
	Config string // its config file, which it follows
	log    *tailbuf.Buffer
}

// StartWatchdog serves a config for the rig's server named name (its
// idle timeout idle, its log and store), with a proxy when proxied, and hostKeys as its
// [host] table's keys; the daemon's home is the host's (the beacons the
// host's client writes). The test's cleanup stops it.
func (r *Rig) StartWatchdog(name string, idle time.Duration, proxied bool, hostKeys string) *Watchdog {
	r.t.Helper()
	dir := r.t.TempDir()
	w := &Watchdog{State: filepath.Join(dir, "state"), log: &tailbuf.Buffer{Max: 16 << 20}}
	body := fmt.Sprintf("[host]\n%s\n[[server]]\nname = %q\nurl = %q\nlogs = [%q]\nstore = %q\nidle_timeout = %q\nkeep_warm = false\n",
		hostKeys, name, r.Server.url, r.Log, r.Store, idle.String())
	if proxied {
		w.Proxy = daemontest.FreePort(r.t)
		body += fmt.Sprintf("proxy_listen = %q\n", w.Proxy)
	}
	w.Config = daemontest.WriteConfig(r.t, dir, body)
	cfg, err := config.Load(w.Config)
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	// Send set: the desktop's notification service is never asked (on a
	// machine without a session bus, asking autolaunches a dbus-daemon
	// that outlives the test).
	opts := daemon.Options{Home: r.Home, Logger: slog.New(slog.NewTextHandler(w.log, nil)),
		Send: func(string, string) error { return nil }, ConfigFile: w.Config}
	go func() { done <- daemon.Serve(ctx, cfg, w.State, opts) }()
	r.t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			r.t.Errorf("the watchdog did not stop; its log:\n%s", w.log.String())
		}
		if r.t.Failed() {
			r.t.Logf("the watchdog's log:\n%s", w.log.String())
		}
	})
	daemontest.WaitReady(r.t, w.State, 0)
	return w
}

// ProxyURL is the URL a host gives the watchdog's proxy.
func (w *Watchdog) ProxyURL(t *testing.T) string {
	t.Helper()
	return daemontest.ProxyURL(t, w.State, w.Proxy)
}

// Status is the watchdog's status as its control socket answers it.
func (w *Watchdog) Status(t *testing.T) health.Status {
	t.Helper()
	st, err := w.status()
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	return st
}

// status asks the control socket; the daemon taking a changed config
// starts its run again, and does not answer for that moment.
func (w *Watchdog) status() (health.Status, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var st health.Status
	raw, err := control.Dial(control.SocketPath(w.State)).Status(ctx)
	if err == nil {
		err = json.Unmarshal(raw, &st)
	}
	return st, err
}

// served waits, as `watchdog hosts adopt` does, until the watchdog serves
// a proxy on each address.
func (w *Watchdog) served() func(context.Context, []string) error {
	return func(ctx context.Context, listens []string) error {
		deadline := time.Now().Add(20 * time.Second)
		for {
			st, _ := w.status()
			all := true
			for _, l := range listens {
				ok := false
				for _, s := range st.Servers {
					ok = ok || proxyurl.SameListen(s.ProxyListen, l) && s.ProxyServed
				}
				all = all && ok
			}
			if all {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the watchdog does not serve %v", listens)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}

// findOptions are where the rig's host keeps its files: its HOME, and the
// folders the hosts' variables would name there.
func (r *Rig) findOptions() find.Options {
	env := map[string]string{"XDG_CONFIG_HOME": filepath.Join(r.Home, ".config"), "XDG_DATA_HOME": filepath.Join(r.Home, ".local", "share"),
		"CODEX_HOME": filepath.Join(r.Home, ".codex"), "COPILOT_HOME": filepath.Join(r.Home, ".copilot")}
	return find.Options{Home: r.Home, GOOS: runtime.GOOS, Projects: []string{r.workdir()}, Getenv: func(k string) string { return env[k] }}
}

// Adopt runs `watchdog hosts adopt` for the host of profile p on the
// running watchdog w: it rewrites the host's files (what its own CLI
// registered) to the proxy's URL once w serves the proxy.
func (r *Rig) Adopt(w *Watchdog, p host.Profile) {
	r.t.Helper()
	if res, err := adopt.Adopt(r.t.Context(), r.adoptOptions(w, p)); err != nil || !res.Changed {
		r.t.Fatalf("adopt %s: %+v, %v", p.Name, res, err)
	}
}

// Release runs `watchdog hosts release` for the host of profile p.
func (r *Rig) Release(w *Watchdog, p host.Profile) {
	r.t.Helper()
	if _, err := adopt.Release(r.t.Context(), r.adoptOptions(w, p)); err != nil {
		r.t.Fatalf("release %s: %v", p.Name, err)
	}
}

// adoptOptions are adopt's options for the host of p on w, as the
// command line makes them.
func (r *Rig) adoptOptions(w *Watchdog, p host.Profile) adopt.Options {
	r.t.Helper()
	secret, err := proxy.LoadSecret(w.State)
	if err != nil {
		r.t.Fatal(err)
	}
	return adopt.Options{Host: p, Files: find.Paths(p, r.findOptions()), ConfigPath: w.Config, StateDir: w.State, Secret: secret,
		Served: w.served()}
}
