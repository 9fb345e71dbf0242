package beacon

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/monitor/proc"
)

// secret is in the middle of every session id the watcher tests use:
// mask.ID keeps 4 characters at each end, so it shows in a log only when
// an id was logged whole.
const secret = "SECRET"

func testID(n string) string { return "sess-" + n + "-" + secret + "-0123456789" }

// child is a real process a beacon can name: `sleep 60`, killed at cleanup.
type child struct {
	cmd  *exec.Cmd
	pid  int32
	host proc.Host
}

func startChild(t *testing.T) *child {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, pid: int32(cmd.Process.Pid)}
	t.Cleanup(c.kill)
	h, ok := proc.Lookup(t.Context(), c.pid)
	if !ok {
		t.Fatalf("cannot look up child %d", c.pid)
	}
	c.host = h
	return c
}

// kill ends the child and reaps it; safe to call twice.
func (c *child) kill() {
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}

// client is a one-server beacon for pid holding id, written now.
func client(pid int32, id string) Client {
	now := time.Now().UTC()
	return Client{PID: pid, Updated: now, Servers: []Server{{Name: "mem", URL: "http://127.0.0.1:14242/mcp",
		SessionID: id, State: Connected, ConnectedSince: now.Add(-time.Minute), Updated: now}}}
}

// writeBeacon writes c into dir the way the client does: the directory made
// 0700, a temp file 0600, renamed over the beacon.
func writeBeacon(t *testing.T, dir string, c Client) string {
	t.Helper()
	return writeRaw(t, dir, beaconName(c.PID), encode(c))
}

func writeRaw(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, ".writing.tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// logBuf collects a Watch's log; the Watch goroutine writes while the test
// reads.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// count is how many log lines contain every one of words.
func (l *logBuf) count(words ...string) int {
	n := 0
	for line := range strings.Lines(l.String()) {
		all := true
		for _, w := range words {
			all = all && strings.Contains(line, w)
		}
		if all {
			n++
		}
	}
	return n
}

// watcher is a running Watch, stopped at cleanup: it must then return nil
// promptly, and its log must hold no whole session id.
type watcher struct {
	updates chan Update
	log     *logBuf
}

func startWatch(t *testing.T, dir string, interval time.Duration) *watcher {
	t.Helper()
	return start(t, Options{Dir: dir, Interval: interval}, func(ctx context.Context, opts Options, out chan<- Update) error {
		return Watch(ctx, opts, out)
	})
}

// startAs runs the loop as Watch does, but as if the daemon ran as uid.
func startAs(t *testing.T, dir string, uid int) *watcher {
	t.Helper()
	return start(t, Options{Dir: dir, Interval: 100 * time.Millisecond}, func(ctx context.Context, opts Options, out chan<- Update) error {
		return newLoop(opts, uid, out).run(ctx)
	})
}

type runFunc func(context.Context, Options, chan<- Update) error

func start(t *testing.T, opts Options, run runFunc) *watcher {
	t.Helper()
	w := &watcher{updates: make(chan Update), log: &logBuf{}}
	opts.Logger = slog.New(slog.NewTextHandler(w.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, opts, w.updates) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Watch returned %v, want nil on cancel", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Watch did not return after its context ended")
		}
		if strings.Contains(w.log.String(), secret) {
			t.Errorf("a whole session id was logged:\n%s", w.log)
		}
	})
	return w
}

// next waits for the next Update.
func (w *watcher) next(t *testing.T) Update {
	t.Helper()
	select {
	case u := <-w.updates:
		return u
	case <-time.After(10 * time.Second):
		t.Fatalf("no Update within 10 s; log:\n%s", w.log)
		return Update{}
	}
}

// waitFor returns the first Update that satisfies cond, within limit.
func (w *watcher) waitFor(t *testing.T, what string, limit time.Duration, cond func(Update) bool) Update {
	t.Helper()
	deadline := time.After(limit)
	for {
		select {
		case u := <-w.updates:
			if cond(u) {
				return u
			}
		case <-deadline:
			t.Fatalf("no Update with %s within %s; log:\n%s", what, limit, w.log)
		}
	}
}

// quiet fails on any Update within d: nothing changed, nothing is sent.
func (w *watcher) quiet(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case u := <-w.updates:
		t.Fatalf("unexpected Update %+v", u)
	case <-time.After(d):
	}
}

// pids lists the clients' pids.
func pids(u Update) []int32 {
	var out []int32
	for _, c := range u.Clients {
		out = append(out, c.PID)
	}
	return out
}

// holds reports whether u has a client pid holding session id.
func holds(u Update, pid int32, id string) bool {
	for _, c := range u.Clients {
		if s, ok := c.Server("mem"); ok && c.PID == pid && s.SessionID == id {
			return true
		}
	}
	return false
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
