package daemon_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/restart"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// restartAttempts are the journal's host-restart heal_started and
// heal_failed events: every time the daemon tried the last rung.
func restartAttempts(t *testing.T, state string) (started, refused []daemontest.JournalLine) {
	t.Helper()
	for _, ev := range daemontest.Journal(t, state, "heal_started", "heal_failed") {
		if ev.Str("strategy") != "host_restart" {
			continue
		}
		if ev.Str("kind") == "heal_started" {
			started = append(started, ev)
		} else {
			refused = append(refused, ev)
		}
	}
	return started, refused
}

// standInStarts reads the pids the restarted stand-in hosts wrote.
func standInStarts(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("%s: %q is no pid", path, f)
		}
		pids = append(pids, pid)
	}
	return pids
}

// TestCrashLoopingDaemonKeepsTheRestartLimit: a watchdog that is itself
// restarted over and over (systemd Restart=, a crash loop) finds its
// host's session lost at every start, with auto_restart set. The restart
// limits outlive each run, so the host is restarted at most the policy's
// burst in total, however many times the watchdog was.
func TestCrashLoopingDaemonKeepsTheRestartLimit(t *testing.T) {
	t.Parallel()
	starts := filepath.Join(t.TempDir(), "starts")
	cfg, state, store, hostLog, token := ladderSetup(t, []string{"EXE", "TOKEN", starts})
	t.Cleanup(func() {
		for _, pid := range standInStarts(t, starts) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	startStandInHost(t, token)
	const runs = 10
	for run := 1; run <= runs; run++ {
		d := startDaemon(t, cfg, state)
		if run == 1 {
			daemontest.WaitEvent(t, state, "host_up", 1, 20*time.Second)
			writeSessions(t, store, "host-session-00000002")
			daemontest.WaitEvent(t, state, "session_new", 1, 10*time.Second)
		} else {
			// The last run's incident is open again; the host reconnects,
			// then loses its session anew.
			daemontest.AppendLine(t, hostLog, "INFO [mcp mem] Reconnected to MCP server")
			daemontest.WaitEvent(t, state, "recovered", run-1, 10*time.Second)
		}
		before, refusedBefore := restartAttempts(t, state)
		daemontest.AppendLine(t, hostLog, postLost)
		daemontest.WaitFor(t, 20*time.Second, "a host-restart attempt after the loss", func() bool {
			s, r := restartAttempts(t, state)
			return len(s)+len(r) > len(before)+len(refusedBefore)
		})
		// A restart begun is let through before the stop: the stand-in it
		// starts writes its pid.
		started, _ := restartAttempts(t, state)
		daemontest.WaitFor(t, 20*time.Second, "the restarted host to start", func() bool {
			return len(standInStarts(t, starts)) >= len(started)
		})
		d.stop(t)
	}
	started, refused := restartAttempts(t, state)
	t.Logf("%d restarts, %d refused", len(started), len(refused))
	burst := restart.DefaultPolicy().Burst
	if len(started) < 1 || len(started) > burst {
		t.Fatalf("%d host restarts over %d runs of the watchdog, want 1 to %d (the policy's burst)", len(started), runs, burst)
	}
	for _, ev := range refused {
		if d := ev.Str("detail"); !strings.Contains(d, "backoff") && !strings.Contains(d, "limit") {
			t.Errorf("a refused restart does not say why: %q", d)
		}
	}
	// The stand-in's own count: no host was started but those journaled.
	if n := len(standInStarts(t, starts)); n != len(started) {
		t.Fatalf("%d stand-in hosts started, %d restarts journaled", n, len(started))
	}
}

// TestUnreadableRestartHistoryHoldsRestarts: a restarts.json that cannot
// be read does not lift the limit: the start journals a warning naming the
// file and what to do, and a lost session is not healed by a restart.
func TestUnreadableRestartHistoryHoldsRestarts(t *testing.T) {
	t.Parallel()
	starts := filepath.Join(t.TempDir(), "starts")
	cfg, state, store, hostLog, token := ladderSetup(t, []string{"EXE", "TOKEN", starts})
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	history := filepath.Join(state, "restarts.json")
	if err := os.WriteFile(history, []byte(`{"version":1,"restarts":[`), 0o600); err != nil {
		t.Fatal(err)
	}
	startStandInHost(t, token)
	startDaemon(t, cfg, state)
	var warned bool
	for _, ev := range daemontest.Journal(t, state, "warning") {
		warned = warned || strings.Contains(ev.Str("detail"), history) && strings.Contains(ev.Str("detail"), "delete")
	}
	if !warned {
		t.Fatalf("no warning names %s and what to do: %v", history, daemontest.Journal(t, state, "warning"))
	}
	daemontest.WaitEvent(t, state, "host_up", 1, 20*time.Second)
	writeSessions(t, store, "host-session-00000002")
	daemontest.WaitEvent(t, state, "session_new", 1, 10*time.Second)
	daemontest.AppendLine(t, hostLog, postLost)
	daemontest.WaitFor(t, 20*time.Second, "the refused host restart", func() bool {
		_, refused := restartAttempts(t, state)
		return len(refused) > 0
	})
	started, refused := restartAttempts(t, state)
	if len(started) != 0 || !strings.Contains(refused[0].Str("detail"), "limit") {
		t.Fatalf("%d restarts, refused with %q; want none, refused by the limit", len(started), refused[0].Str("detail"))
	}
	if pids := standInStarts(t, starts); len(pids) != 0 {
		t.Fatalf("stand-in hosts started: %v", pids)
	}
}

// TestRestartThatCannotBeRecordedIsNotMade: when the restart cannot be
// saved first (here a directory stands where restarts.json goes), the host
// is left alone and heal_failed says what to fix: a restart the next run
// would not know of could escape the limit in a crash loop.
func TestRestartThatCannotBeRecordedIsNotMade(t *testing.T) {
	t.Parallel()
	starts := filepath.Join(t.TempDir(), "starts")
	cfg, state, store, hostLog, token := ladderSetup(t, []string{"EXE", "TOKEN", starts})
	startStandInHost(t, token)
	startDaemon(t, cfg, state)
	daemontest.WaitEvent(t, state, "host_up", 1, 20*time.Second)
	writeSessions(t, store, "host-session-00000002")
	daemontest.WaitEvent(t, state, "session_new", 1, 10*time.Second)
	if err := os.MkdirAll(filepath.Join(state, "restarts.json", "in-the-way"), 0o700); err != nil {
		t.Fatal(err)
	}
	daemontest.AppendLine(t, hostLog, postLost)
	daemontest.WaitFor(t, 20*time.Second, "the refused host restart", func() bool {
		_, refused := restartAttempts(t, state)
		return len(refused) > 0
	})
	started, refused := restartAttempts(t, state)
	if d := refused[0].Str("detail"); len(started) != 0 || !strings.Contains(d, "could not be recorded") || !strings.Contains(d, "restarts.json") {
		t.Fatalf("%d restarts, refused with %q; want none, refused naming restarts.json", len(started), d)
	}
	if pids := standInStarts(t, starts); len(pids) != 0 {
		t.Fatalf("stand-in hosts started: %v", pids)
	}
}
