//go:build linux

package stdio_test

import (
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/stdio"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

// A call that comes while a restart is under way waits for it; one that
// waits longer than RestartWait gets an error saying the server is being
// started again, and nothing hangs.
func TestACallDuringASlowRestart(t *testing.T) {
	lim := fastLimits()
	lim.RestartWait = 300 * time.Millisecond
	r := start(t, []string{"-again-delay", "3s"}, func(o *stdioOptions) { o.Limits = &lim })
	cs := r.client(nil, legacy)
	r.kill()
	r.waitKind(proxywire.StdioExited)
	_, err := call(t, cs, "echo", map[string]any{"text": "x"})
	if err == nil || !strings.Contains(err.Error(), "is being started again and did not come back within 300ms") {
		t.Fatalf("a call during a 3 s restart: %v, want the restart's error", err)
	}
	r.waitKind(proxywire.StdioRestarted)
	if got, err := call(t, cs, "echo", map[string]any{"text": "back"}); err != nil || got != "back" {
		t.Fatalf("once it is back: %q, %v", got, err)
	}
}

// A server whose command is gone cannot be started again: each failed
// start counts as an exit, and the crash loop stops the tries with an
// error that says why.
func TestAServerThatCannotBeStartedAgain(t *testing.T) {
	bin := t.TempDir() + "/server"
	b, err := os.ReadFile(serverBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	r := startCmd(t, bin, nil)
	cs := r.client(nil, legacy)
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	r.kill()
	g := r.waitKind(proxywire.StdioGaveUp)
	if !strings.Contains(g.Detail, "exited 5 times") {
		t.Errorf("gave_up: %q", g.Detail)
	}
	if _, err := call(t, cs, "echo", map[string]any{"text": "x"}); err == nil || !strings.Contains(err.Error(), "stopped starting it again") {
		t.Fatalf("a call after the give-up: %v", err)
	}
	if !strings.Contains(r.stderr.String(), "cannot start") {
		t.Errorf("stderr does not say the start failed:\n%s", r.stderr)
	}
}

// After a give-up, a request once the crash window has passed since the
// last exit starts the server again (the supervisor's clock is moved past
// the window).
func TestAGiveUpIsTriedAgainAfterARest(t *testing.T) {
	var skew atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	r := start(t, []string{"-mode", "exit"}, func(o *stdioOptions) { o.Now = now })
	r.waitKind(proxywire.StdioGaveUp)
	n := len(r.servers())
	r.rawLine(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"})
	if line := r.readLine(10 * time.Second); !strings.Contains(line, "crash_loop") {
		t.Fatalf("a ping within the window: %s, want the give-up's error", line)
	}
	skew.Store(int64(stdio.DefaultCrashWindow))
	r.rawLine(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "ping"})
	waitFor(t, "a start after the rest", func() bool { return len(r.servers()) > n })
}

// A death is told with the server's last stderr line, even when the
// server writes it just before it dies: the stderr pipe is read to its
// end before the death is handled (the line was missing now and then when
// only stdout was waited for).
func TestADeathIsToldWithItsLastStderrLine(t *testing.T) {
	for i := range 3 {
		// A burst on stderr first, into a host that takes its stderr
		// slowly: the reader is still at work when the server has exited
		// and its stdout is drained.
		r := start(t, nil, func(o *stdioOptions) { o.Stderr = slowWriter{} })
		cs := r.client(nil, legacy)
		_, _ = call(t, cs, "crash", map[string]any{"noise": 256 << 10})
		if got := r.waitKind(proxywire.StdioExited).Stderr; got != "stdioserver: crashing on purpose" {
			t.Fatalf("run %d: the exit was told with stderr %q, want the server's last line", i, got)
		}
	}
}

// slowWriter takes a millisecond for each write.
type slowWriter struct{}

func (slowWriter) Write(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	return len(p), nil
}
