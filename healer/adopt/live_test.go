package adopt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// TestUnserved: a listen is served only when the daemon says so for it;
// otherwise the answer says why, the daemon's own problem first.
func TestUnserved(t *testing.T) {
	t.Parallel()
	st := &health.Status{Servers: []health.ServerStatus{
		{ProxyListen: "127.0.0.1:7001", ProxyServed: true},
		{ProxyListen: "127.0.0.1:7002", ProxyProblem: "address in use"},
	}}
	tests := []struct {
		name    string
		st      *health.Status
		listens []string
		want    string
	}{
		{"served", st, []string{"127.0.0.1:7001"}, ""},
		{"nothing asked", st, nil, ""},
		{"not served, with the daemon's reason", st, []string{"127.0.0.1:7001", "127.0.0.1:7002"}, "127.0.0.1:7002: address in use"},
		{"not in the config yet", st, []string{"127.0.0.1:7003"}, "it has not taken the changed config yet"},
		{"no daemon", nil, []string{"127.0.0.1:7001"}, "no answer"},
	}
	for _, tc := range tests {
		if got := Unserved(tc.st, tc.listens); got != tc.want {
			t.Errorf("%s: Unserved = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestServedByGivesUpWithTheReason: a daemon that never serves the listen
// makes ServedBy fail, naming what it last said; one that does, succeed.
func TestServedByGivesUpWithTheReason(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the wait ends at its first look
	down := func(context.Context) (*health.Status, error) { return nil, errors.New("connection refused") }
	if err := ServedBy(down)(ctx, []string{"127.0.0.1:7001"}); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("ServedBy of a daemon that does not answer = %v; want an error that says so", err)
	}
	up := func(context.Context) (*health.Status, error) {
		return &health.Status{Servers: []health.ServerStatus{{ProxyListen: "127.0.0.1:7001", ProxyServed: true}}}, nil
	}
	if err := ServedBy(up)(ctx, []string{"127.0.0.1:7001"}); err != nil {
		t.Errorf("ServedBy of a daemon that serves the listen = %v", err)
	}
}

// TestConfigPath: adopt writes the config named, or the running daemon's;
// a named config the running daemon does not read is refused.
func TestConfigPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.toml")
	if err := os.Symlink(cfg, link); err != nil {
		t.Fatal(err)
	}
	running := &health.Status{Daemon: &health.DaemonStatus{PID: 42, ConfigFile: cfg}}
	for _, tc := range []struct {
		name, named string
		st          *health.Status
		want        string
	}{
		{"named, no daemon", cfg, nil, cfg},
		{"the daemon's", "", running, cfg},
		{"named through a symlink", link, running, link},
	} {
		if got, err := ConfigPath(tc.named, tc.st); err != nil || got != tc.want {
			t.Errorf("%s: ConfigPath = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	other := filepath.Join(dir, "other.toml")
	if _, err := ConfigPath(other, running); err == nil || !strings.Contains(err.Error(), "pid 42") {
		t.Errorf("ConfigPath of a config the daemon does not read = %v; want a refusal naming the daemon", err)
	}
}
