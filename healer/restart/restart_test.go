//go:build unix

package restart_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/restart"
)

// restartRig is one Restarter writing to its own host.log.
type restartRig struct {
	r       *restart.Restarter
	hostLog string
	log     *logBuffer
}

func newRestartRig(t *testing.T, o restart.Options) *restartRig {
	t.Helper()
	rig := &restartRig{hostLog: filepath.Join(t.TempDir(), "state", "host.log"), log: &logBuffer{}}
	if o.LogPath == "" {
		o.LogPath = rig.hostLog
	}
	rig.hostLog = o.LogPath
	o.Logger = rig.log.logger()
	rig.r = restart.New(o)
	t.Cleanup(func() { _ = rig.r.Close() })
	return rig
}

// restart runs Restart and, when it started a host, has it killed at the
// end of the test (before the Restarter closes, so its reaper collects it).
func (rig *restartRig) restart(t *testing.T, ctx context.Context, host restart.Process) (restart.Result, error) {
	t.Helper()
	res, err := rig.r.Restart(ctx, host)
	if res.NewPID > 0 {
		t.Cleanup(func() { killDetached(t, res.NewPID) })
	}
	return res, err
}

func (rig *restartRig) mustRestart(t *testing.T, host restart.Process) restart.Result {
	t.Helper()
	res, err := rig.restart(t, context.Background(), host)
	if err != nil {
		t.Fatalf("Restart(%+v): %v\nlog:\n%s", host, err, rig.log)
	}
	if res.NewPID <= 0 || res.NewPID == int(host.PID) {
		t.Fatalf("Restart(%+v) = %+v: want a new pid", host, res)
	}
	return res
}

// TestRestarter runs each case against the stand-in host, all in
// parallel; each case is a function of its own below.
func TestRestarter(t *testing.T) {
	exe := buildStandIn(t)
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, exe string)
	}{
		{"stops the host with SIGTERM and starts a detached one", restartStopsThenStartsDetached},
		{"a host that ignores SIGTERM is killed after the grace", restartKillsAfterGrace},
		{"a missing command leaves the host running", restartMissingCommand},
		{"a host log that cannot be opened leaves the host running", restartUnopenableLog},
		{"a host log that is a symlink is refused, its target untouched", restartLinkedLog},
		{"arguments reach the host literally, never through a shell", restartArgsLiteral},
		{"no restart command", restartNoCommand},
		{"refuses pids that are not a host", restartRefusesNonHosts},
		{"a pid that is no longer the host is never signalled", restartReusedPID},
		{"a host of unknown start time is never signalled", restartUnknownStart},
		{"restarts a host it started, appending to the log and reaping it", restartOwnHost},
		{"while one restart waits, another is refused; cancelling leaves the host", restartOneAtATime},
		{"close leaves the host running and refuses further restarts", restartAfterClose},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, exe)
		})
	}
}

// restartStopsThenStartsDetached: the host is stopped with SIGTERM and a detached one started.
func restartStopsThenStartsDetached(t *testing.T, exe string) {
	old := startOldHost(t, exe, false)
	rig := newRestartRig(t, restart.Options{Argv: []string{exe, "web"}, Env: standInEnv(false)})
	res := rig.mustRestart(t, old.identity(t))

	if res.StoppedPID != old.pid || res.Killed {
		t.Errorf("Result = %+v, want StoppedPID %d, not killed", res, old.pid)
	}
	if ws := old.waitExit(t); !ws.Exited() || ws.ExitStatus() != 0 {
		t.Errorf("old host ended with %v, want a clean exit on SIGTERM", ws)
	}
	waitFileContains(t, old.out, "got SIGTERM, exiting")

	line := waitStandInLine(t, rig.hostLog, res.NewPID)
	if !reflect.DeepEqual(line.args, []string{"web"}) {
		t.Errorf("new host args = %q, want [web]", line.args)
	}
	if line.pgid != res.NewPID {
		t.Errorf("new host's process group %d, want its own (%d): not detached", line.pgid, res.NewPID)
	}
	wantAnswers(t, line.port, res.NewPID)
	waitFileContains(t, rig.hostLog, "stderr works") // stderr lands there too
	waitFileContains(t, rig.hostLog, "watchdog: starting standin ---")

	fi, err := os.Stat(rig.hostLog)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("host.log mode %v, want 0600", fi.Mode().Perm())
	}
}

// restartKillsAfterGrace: a host that ignores SIGTERM is killed after the grace.
func restartKillsAfterGrace(t *testing.T, exe string) {
	old := startOldHost(t, exe, true)
	rig := newRestartRig(t, restart.Options{
		Argv: []string{exe}, Env: standInEnv(false), StopGrace: 500 * time.Millisecond,
	})
	res := rig.mustRestart(t, old.identity(t))

	if res.StoppedPID != old.pid || !res.Killed {
		t.Errorf("Result = %+v, want StoppedPID %d, killed", res, old.pid)
	}
	if ws := old.waitExit(t); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("old host ended with %v, want SIGKILL", ws)
	}
	waitFileContains(t, old.out, "got SIGTERM, ignoring it")
	if !strings.Contains(rig.log.String(), "ignored SIGTERM") {
		t.Errorf("log does not say the host ignored SIGTERM:\n%s", rig.log)
	}
	wantAnswers(t, waitStandInLine(t, rig.hostLog, res.NewPID).port, res.NewPID)
}

// restartMissingCommand: a missing command leaves the host running.
func restartMissingCommand(t *testing.T, exe string) {
	for _, name := range []string{
		"watchdog-test-no-such-command",
		filepath.Join(t.TempDir(), "no", "such", "dsh"),
		exe + ".missing",
	} {
		old := startOldHost(t, exe, false)
		rig := newRestartRig(t, restart.Options{Argv: []string{name, "web"}})
		res, err := rig.restart(t, context.Background(), old.identity(t))
		if !errors.Is(err, restart.ErrCommandNotFound) {
			t.Fatalf("Restart with %q: err = %v, want ErrCommandNotFound", name, err)
		}
		for _, want := range []string{name, "set host.restart in the config", "left alone"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
		if res != (restart.Result{}) {
			t.Errorf("Result = %+v, want zero", res)
		}
		if !old.running() {
			t.Fatalf("old host %d stopped although no new one could start", old.pid)
		}
		wantAnswers(t, old.port, int(old.pid))
		if _, err := os.Stat(rig.hostLog); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("host.log exists (err %v): the restart went further than the lookup", err)
		}
	}
}

// restartUnopenableLog: a host log that cannot be opened leaves the host running.
func restartUnopenableLog(t *testing.T, exe string) {
	old := startOldHost(t, exe, false)
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rig := newRestartRig(t, restart.Options{Argv: []string{exe}, LogPath: filepath.Join(notDir, "host.log")})
	if _, err := rig.restart(t, context.Background(), old.identity(t)); err == nil {
		t.Fatal("Restart succeeded with an unopenable log")
	}
	if !old.running() {
		t.Fatalf("old host %d stopped although the log could not be opened", old.pid)
	}
	wantAnswers(t, old.port, int(old.pid))
}

// restartArgsLiteral: arguments reach the host literally, never through a shell.
func restartArgsLiteral(t *testing.T, exe string) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "pwned")
	args := []string{
		"$(touch " + marker + "); echo hi",
		"`touch " + marker + "`",
		"; touch " + marker,
		"a b  c",
		"*",
		"'quoted' \"twice\"",
		"",
	}
	rig := newRestartRig(t, restart.Options{Argv: append([]string{exe}, args...), Env: standInEnv(false)})
	res := rig.mustRestart(t, restart.Process{})
	if res.StoppedPID != 0 || res.Killed {
		t.Errorf("Result = %+v: nothing was running to stop", res)
	}
	line := waitStandInLine(t, rig.hostLog, res.NewPID)
	if !reflect.DeepEqual(line.args, args) {
		t.Errorf("host got args %q, want %q", line.args, args)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists (err %v): an argument was run by a shell", marker, err)
	}
}

// restartNoCommand: with no restart command Restart fails with ErrNoRestartCommand.
func restartNoCommand(t *testing.T, _ string) {
	for _, argv := range [][]string{nil, {}, {""}} {
		rig := newRestartRig(t, restart.Options{Argv: argv})
		_, err := rig.restart(t, context.Background(), restart.Process{})
		if !errors.Is(err, restart.ErrNoRestartCommand) {
			t.Errorf("Argv %q: err = %v, want ErrNoRestartCommand", argv, err)
		}
	}
}

// restartRefusesNonHosts: pids that are not a host are refused.
func restartRefusesNonHosts(t *testing.T, exe string) {
	for _, pid := range []int32{-1, -int32(os.Getpid()), 1, int32(os.Getpid())} {
		rig := newRestartRig(t, restart.Options{Argv: []string{exe}})
		res, err := rig.restart(t, context.Background(), restart.Process{PID: pid, Started: time.Now()})
		if err == nil || res.NewPID != 0 {
			t.Errorf("Restart(%d) = %+v, %v: want refused", pid, res, err)
		}
		if _, err := os.Stat(rig.hostLog); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Restart(%d) created host.log (err %v)", pid, err)
		}
	}
}

// restartReusedPID is measurement 7 of issue 14: the host's pid now runs
// another process (same pid, another start time). It must get no signal;
// the host it was is gone, so a new one is started.
func restartReusedPID(t *testing.T, exe string) {
	for _, offset := range []time.Duration{time.Second, -time.Millisecond, time.Hour} {
		other := startOldHost(t, exe, false)
		rig := newRestartRig(t, restart.Options{Argv: []string{exe}, Env: standInEnv(false)})
		was := other.identity(t)
		was.Started = was.Started.Add(offset)
		res := rig.mustRestart(t, was)
		if res.StoppedPID != 0 || res.Killed || !res.HostGone {
			t.Errorf("offset %v: Result = %+v, want nothing stopped and HostGone", offset, res)
		}
		if !other.running() {
			t.Fatalf("offset %v: pid %d, now another process, was stopped", offset, other.pid)
		}
		wantAnswers(t, other.port, int(other.pid))
		if b, _ := os.ReadFile(other.out); strings.Contains(string(b), "got SIGTERM") {
			t.Errorf("offset %v: the other process got SIGTERM", offset)
		}
		if !strings.Contains(rig.log.String(), "another process") {
			t.Errorf("offset %v: log does not say the pid belongs to another process:\n%s", offset, rig.log)
		}
		wantAnswers(t, waitStandInLine(t, rig.hostLog, res.NewPID).port, res.NewPID)
	}
}

// restartUnknownStart: a pid without a start time may be anyone's by now;
// Restart refuses and says what to do.
func restartUnknownStart(t *testing.T, exe string) {
	old := startOldHost(t, exe, false)
	rig := newRestartRig(t, restart.Options{Argv: []string{exe}, Env: standInEnv(false)})
	res, err := rig.restart(t, context.Background(), restart.Process{PID: old.pid})
	if !errors.Is(err, restart.ErrStartUnknown) || res != (restart.Result{}) {
		t.Fatalf("Restart without a start time = %+v, %v: want ErrStartUnknown", res, err)
	}
	for _, want := range []string{fmt.Sprint(old.pid), "left alone", "host.process"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if !old.running() {
		t.Fatal("the host was stopped although its start time was unknown")
	}
	wantAnswers(t, old.port, int(old.pid))
	if _, err := os.Stat(rig.hostLog); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("host.log exists (err %v): the restart went on", err)
	}
}

// restartOwnHost: a host the Restarter started is restarted, its log appended to and it reaped.
func restartOwnHost(t *testing.T, exe string) {
	rig := newRestartRig(t, restart.Options{Argv: []string{exe, "first"}, Env: standInEnv(false)})
	first := rig.mustRestart(t, restart.Process{})
	firstLine := waitStandInLine(t, rig.hostLog, first.NewPID)
	wantAnswers(t, firstLine.port, first.NewPID)

	second := rig.mustRestart(t, identityOf(t, first.NewPID))
	if second.StoppedPID != int32(first.NewPID) || second.Killed {
		t.Errorf("Result = %+v, want StoppedPID %d, not killed", second, first.NewPID)
	}
	wantAnswers(t, waitStandInLine(t, rig.hostLog, second.NewPID).port, second.NewPID)
	if _, ok := findStandInLine(t, rig.hostLog, first.NewPID); !ok {
		t.Error("the first host's output is gone from host.log: not appended")
	}
	waitFileContains(t, rig.hostLog, "got SIGTERM, exiting")
	// This process is the first host's parent, but nothing here waits
	// for it except the Restarter's reaper: collected means reaped.
	waitUntil(t, "the first host to be reaped", func() bool {
		return errors.Is(syscall.Kill(first.NewPID, 0), syscall.ESRCH)
	})
	if !strings.Contains(rig.log.String(), "host exited") {
		t.Errorf("log does not record the first host's exit:\n%s", rig.log)
	}
}

// restartOneAtATime: while one restart waits, another is refused; cancelling leaves the host.
func restartOneAtATime(t *testing.T, exe string) {
	old := startOldHost(t, exe, true)
	rig := newRestartRig(t, restart.Options{Argv: []string{exe}, Env: standInEnv(false), StopGrace: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		res restart.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := rig.r.Restart(ctx, old.identity(t))
		done <- outcome{res, err}
	}()
	waitFileContains(t, old.out, "got SIGTERM, ignoring it")

	if _, err := rig.restart(t, context.Background(), old.identity(t)); !errors.Is(err, restart.ErrRestartInProgress) {
		t.Errorf("second Restart: err = %v, want ErrRestartInProgress", err)
	}
	cancel()
	var got outcome
	select {
	case got = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Restart did not return after its context was cancelled")
	}
	if !errors.Is(got.err, context.Canceled) || got.res.NewPID != 0 {
		t.Errorf("cancelled Restart = %+v, %v: want context.Canceled and no new host", got.res, got.err)
	}
	if !old.running() {
		t.Fatal("old host gone: the cancelled restart killed it")
	}
	wantAnswers(t, old.port, int(old.pid))
	if b, _ := os.ReadFile(rig.hostLog); strings.Contains(string(b), "standin") {
		t.Errorf("host.log shows a started host:\n%s", b)
	}
}

// restartAfterClose: close leaves the host running and refuses further restarts.
func restartAfterClose(t *testing.T, exe string) {
	rig := newRestartRig(t, restart.Options{Argv: []string{exe}, Env: standInEnv(false)})
	res, err := rig.r.Restart(context.Background(), restart.Process{})
	if err != nil {
		t.Fatal(err)
	}
	line := waitStandInLine(t, rig.hostLog, res.NewPID)
	closed := make(chan error, 1)
	go func() { closed <- rig.r.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close blocked while the host runs")
	}
	if err := rig.r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	wantAnswers(t, line.port, res.NewPID)
	if _, err := rig.r.Restart(context.Background(), identityOf(t, res.NewPID)); !errors.Is(err, restart.ErrClosed) {
		t.Errorf("Restart after Close: err = %v, want ErrClosed", err)
	}
	wantAnswers(t, line.port, res.NewPID)

	// The reaper is gone, so the test collects the host itself.
	if err := syscall.Kill(res.NewPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(res.NewPID, &ws, 0, nil); err != nil {
		t.Fatalf("reaping the host after Close: %v", err)
	}
}
