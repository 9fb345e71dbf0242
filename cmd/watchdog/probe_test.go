package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/internal/testbed/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

type probeOut struct {
	Era            string `json:"era"`
	Stateful       bool   `json:"stateful"`
	UnknownSession string `json:"unknown_session"`
	Delete         string `json:"delete"`
	SessionLeft    bool   `json:"session_left"`
}

func probeJSON(t *testing.T, url string) probeOut {
	t.Helper()
	code, out, stderr := runWatchdog(t, "probe", url, "--json", "--config", daemontest.WriteConfig(t, t.TempDir(), "notify = false"))
	if code != 0 {
		t.Fatalf("probe %s: exit %d: %s", url, code, stderr)
	}
	var p probeOut
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("probe --json: %v: %s", err, out)
	}
	return p
}

// TestProbeRealServers runs `watchdog probe` against the Go SDK and the
// TypeScript SDK, stateful, stateless and with the 400 quirk, and checks
// that no probe session is left behind.
func TestProbeRealServers(t *testing.T) {
	t.Parallel()
	t.Run("go stateful", func(t *testing.T) {
		t.Parallel()
		srv, err := demoserver.Start(context.Background(), demoserver.Options{IdleTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		p := probeJSON(t, srv.URL())
		if !p.Stateful || p.UnknownSession != "404 (spec)" || p.SessionLeft {
			t.Fatalf("probe %+v", p)
		}
		if ids := srv.SessionIDs(); len(ids) != 0 {
			t.Fatalf("the probe left %d session(s) on the server", len(ids))
		}
	})
	t.Run("go stateless", func(t *testing.T) {
		t.Parallel()
		srv, err := demoserver.Start(context.Background(), demoserver.Options{Stateless: true})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		if p := probeJSON(t, srv.URL()); p.Stateful || p.Era == "legacy" || p.Era == "unknown" {
			t.Fatalf("probe %+v, want a stateless 2026-07-28 server", p)
		}
	})
	for _, tt := range []struct {
		mode     tsserver.Mode
		stateful bool
		unknown  string
	}{
		{tsserver.Stateful, true, "404 (spec)"},
		{tsserver.Quirk, true, "400 quirk"},
		{tsserver.Stateless, false, ""},
	} {
		t.Run("typescript "+string(tt.mode), func(t *testing.T) {
			t.Parallel()
			srv := tsserver.Start(t, tsserver.Options{Mode: tt.mode})
			p := probeJSON(t, srv.URL())
			if p.Stateful != tt.stateful || len(p.UnknownSession) < len(tt.unknown) || p.UnknownSession[:len(tt.unknown)] != tt.unknown {
				t.Fatalf("probe %+v, want stateful=%v unknown session %q", p, tt.stateful, tt.unknown)
			}
			if p.SessionLeft {
				t.Fatalf("probe says it left a session: %+v", p)
			}
			if ids := srv.Sessions(t); len(ids) != 0 {
				t.Fatalf("the probe left %d session(s) on the server", len(ids))
			}
		})
	}
}
