package hosts

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/health"
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
	raw, err := control.Dial(daemon.SocketPath(w.State)).Status(ctx)
	if err == nil {
		err = json.Unmarshal(raw, &st)
	}
	return st, err
}
