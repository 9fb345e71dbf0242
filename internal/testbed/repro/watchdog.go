package repro

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// WatchdogCommand builds the command that runs the watchdog binary with
// args (the caller sets its binary and environment; Run adds HOME).
type WatchdogCommand func(args ...string) *exec.Cmd

// watchdogDaemon is a real `watchdog run --headless` watching the run's
// server store and the host's patched client: it, not Run, writes the
// recovery trigger when it sees the session lost.
type watchdogDaemon struct {
	sock   string
	cmd    *exec.Cmd
	stderr *strings.Builder
	done   chan error
}

// storePath is where the Go SDK server mirrors its sessions when a
// watchdog watches the run.
func storePath(tmp string) string { return filepath.Join(tmp, "store", "mcp-sessions.json") }

func startWatchdog(ctx context.Context, o Options, tmp, home, module, url string) (*watchdogDaemon, error) {
	state := o.WatchdogState
	if state == "" {
		state = filepath.Join(tmp, "watchdog-state")
	}
	cfg := filepath.Join(tmp, "watchdog.toml")
	body := fmt.Sprintf(`notify = false
[host]
client_name = %q
process = ""
port = 0
client_module = %q
[[server]]
name = %q
url = %q
store = %q
idle_timeout = %q
keep_warm = false
`, dsh().ClientName, module, o.ServerName, url, storePath(tmp), o.IdleTimeout.String())
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		return nil, fmt.Errorf("repro: watchdog config: %w", err)
	}
	cmd := o.Watchdog("run", "--headless", "--config", cfg, "--state-dir", state)
	cmd.Env = withHome(cmd.Env, home)
	w := &watchdogDaemon{cmd: cmd, stderr: &strings.Builder{}, done: make(chan error, 1)}
	cmd.Stderr = w.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("repro: start the watchdog: %w", err)
	}
	go func() { w.done <- cmd.Wait() }()
	sock := filepath.Join(state, "watchdog.sock")
	w.sock = sock
	deadline := time.Now().Add(startWithin)
	for {
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := control.Dial(sock).Status(sctx)
		cancel()
		if err == nil {
			return w, nil
		}
		if time.Now().After(deadline) {
			w.stop()
			return nil, fmt.Errorf("repro: the watchdog never answered on %s: %w", sock, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (w *watchdogDaemon) stop() {
	_ = w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.done:
	case <-time.After(10 * time.Second):
		_ = w.cmd.Process.Kill()
		<-w.done
	}
}

// status asks the running daemon for its status document.
func (w *watchdogDaemon) status(ctx context.Context) (health.Status, error) {
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	raw, err := control.Dial(w.sock).Status(sctx)
	if err != nil {
		return health.Status{}, fmt.Errorf("repro: the watchdog's status: %w", err)
	}
	var st health.Status
	if err := json.Unmarshal(raw, &st); err != nil {
		return health.Status{}, fmt.Errorf("repro: the watchdog's status: %w", err)
	}
	return st, nil
}
