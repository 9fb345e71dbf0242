package daemon_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tailbuf"
)

// served is a daemon serving in this process, as `watchdog run --headless`
// would serve it.
type served struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when Serve has returned
	err    error         // what Serve returned
	log    *tailbuf.Buffer
}

// startDaemon loads the config at configPath and serves the daemon of
// stateDir on a goroutine until the test ends (or stop), and waits until
// it is ready.
func startDaemon(t *testing.T, configPath, stateDir string) *served {
	t.Helper()
	return startDaemonOpts(t, configPath, stateDir, daemon.Options{})
}

// startDaemonOpts is startDaemon with options; their Logger is replaced
// by the one served keeps.
func startDaemonOpts(t *testing.T, configPath, stateDir string, opts daemon.Options) *served {
	t.Helper()
	cfg, err := config.Load(configPath)
	if err != nil {
		t.Fatal(err)
	}
	stateDir, err = config.ResolveStateDir(stateDir, "", cfg.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	before := len(daemontest.Journal(t, stateDir, "started"))
	if opts.Home == "" {
		opts.Home = t.TempDir() // no beacons but this test's own
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Large enough to keep all of the daemon's log.
	s := &served{cancel: cancel, done: make(chan struct{}), log: &tailbuf.Buffer{Max: 64 << 20}}
	opts.Logger = slog.New(slog.NewTextHandler(s.log, nil))
	go func() {
		defer close(s.done)
		s.err = daemon.Serve(ctx, cfg, stateDir, opts)
	}()
	t.Cleanup(func() { s.stop(t) })
	daemontest.WaitReady(t, stateDir, before)
	return s
}

// stop ends the daemon as SIGTERM ends `watchdog run`, failing the test
// when Serve does not return within 10 s. Safe to call twice.
func (s *served) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case <-s.done:
		if s.err != nil {
			t.Logf("the daemon ended with: %v", s.err)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("daemon did not stop; its log:\n%s", s.log.String())
	}
}

// status is the daemon's status as its control socket answers it, which
// is what `watchdog status --json` prints.
func status(t *testing.T, stateDir string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	raw, err := control.Dial(control.SocketPath(stateDir)).Status(ctx)
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	var st map[string]any
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatalf("status: %v: %s", err, raw)
	}
	return st
}

// shownTitles records the titles of the notifications a daemon shows
// (daemon.Options.Send).
type shownTitles struct {
	mu     sync.Mutex
	titles []string
}

func (s *shownTitles) send(title, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.titles = append(s.titles, title)
	return nil
}

func (s *shownTitles) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.titles)
}
