//go:build unix

package adopt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// startHome is a HOME with no supervisor, a config with one proxy, and a
// stand-in watchdog binary running script; it returns the Supervision
// that starts it and the config's path.
func startHome(t *testing.T, script string) (*Supervision, string) {
	t.Helper()
	home := t.TempDir()
	cfg := filepath.Join(home, "watchdog.toml")
	body := "[[server]]\nname = \"mem\"\nurl = \"http://127.0.0.1:9/mcp\"\nproxy_listen = \"127.0.0.1:14399\"\n"
	exe := filepath.Join(home, "watchdog")
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	return &Supervision{Getenv: getenv, NoAutostart: true, StateDir: filepath.Join(home, "state"), Exe: exe}, cfg
}

// With no watchdog running and no supervisor, StartNow starts one in the
// background and returns once its status says the new proxy is served.
func TestStartNowStartsAndWaits(t *testing.T) {
	t.Parallel()
	sv, cfg := startHome(t, "exec sleep 300")
	asked := 0
	status := func(context.Context) (*health.Status, error) {
		if asked++; asked < 3 {
			return nil, errors.New("connection refused")
		}
		return &health.Status{Servers: []health.ServerStatus{{ProxyListen: "127.0.0.1:14399", ProxyServed: true}}}, nil
	}
	if err := sv.StartNow(cfg, status)(context.Background(), []string{"127.0.0.1:14399"}); err != nil {
		t.Fatal(err)
	}
	s := sv.Started
	if s == nil || s.Kind != autostart.XDG || s.PID <= 0 || asked != 3 {
		t.Fatalf("Started = %+v after %d questions; want a background daemon, served at the third", s, asked)
	}
	s.Stop()
}

// A watchdog StartNow started that exits before it serves fails adopt at
// once (not after servedWait), saying how it ended, where its output is
// and what to do.
func TestStartNowSaysWhenTheStartedWatchdogExits(t *testing.T) {
	t.Parallel()
	sv, cfg := startHome(t, "echo 'watchdog: bad config' >&2; exit 3")
	down := func(context.Context) (*health.Status, error) { return nil, errors.New("connection refused") }
	began := time.Now()
	err := sv.StartNow(cfg, down)(context.Background(), []string{"127.0.0.1:14399"})
	if err == nil || time.Since(began) >= servedWait {
		t.Fatalf("StartNow = %v after %v; want an error before %v", err, time.Since(began), servedWait)
	}
	log := filepath.Join(sv.StateDir, autostart.DaemonLog)
	for _, want := range []string{"exited before it served the new proxies (exit status 3)", "its output is in " + log, "adopt with --no-start"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("StartNow = %v; want it to say %q", err, want)
		}
	}
	if b, _ := os.ReadFile(log); !strings.Contains(string(b), "watchdog: bad config") {
		t.Errorf("the log holds %q", b)
	}
	if sv.Started != nil {
		t.Errorf("Started = %v for a watchdog that exited", sv.Started)
	}
}
