package restart

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/host"
)

// HostLogFile is the name, inside the state directory, of the file a
// restarted host's output goes to (and that the watchdog then follows).
const HostLogFile = "host.log"

// HostFileName is a state file of one watched host: base+ext for the main
// host (config.MainHost, the names files had when there was one host),
// base-<host>+ext for each other, its name folded as host.Fold folds it
// (config refuses two hosts that fold alike) and escaped for a file name.
func HostFileName(base, ext, hostName string, main bool) string {
	if main {
		return base + ext
	}
	return base + "-" + url.PathEscape(host.Fold(hostName)) + ext
}

// Restart timing. The grace matches systemd's and Kubernetes' habit of
// asking first; after SIGKILL only a process stuck in the kernel lingers.
const (
	DefaultStopGrace = 10 * time.Second
	killWait         = 5 * time.Second
	stopPoll         = 50 * time.Millisecond
)

// Errors callers branch on.
var (
	// ErrNoRestartCommand: host.restart is empty, so the host is never restarted.
	ErrNoRestartCommand = errors.New("healer: no restart command: set host.restart in the config")
	// ErrCommandNotFound: the restart command does not resolve to an
	// executable; the running host was left alone.
	ErrCommandNotFound = errors.New("healer: restart command not found")
	// ErrRestartInProgress: another Restart is still running.
	ErrRestartInProgress = errors.New("healer: a host restart is already in progress")
	// ErrHostDidNotStop: the host outlived SIGKILL; no new host was started.
	ErrHostDidNotStop = errors.New("healer: host did not stop")
	// ErrStartUnknown: the host's start time is unknown, so its pid could
	// be another process's by now; nothing was signalled.
	ErrStartUnknown = errors.New("healer: the host's start time is unknown")
	// ErrClosed: the Restarter was closed.
	ErrClosed = errors.New("healer: restarter closed")
)

// Options configure a Restarter.
type Options struct {
	// Argv starts the host: Argv[0] is looked up in PATH and run with the
	// rest as its arguments, never through a shell. Empty: Restart
	// returns ErrNoRestartCommand.
	Argv []string
	// LogPath receives the new host's stdout and stderr, appended, created
	// 0600 (normally STATE_DIR/host.log). Empty: the output is discarded.
	LogPath string
	// StopGrace is how long the old host has to exit after SIGTERM before
	// it gets SIGKILL. 0: DefaultStopGrace.
	StopGrace time.Duration
	// Logger records what Restart does. Nil: discard.
	Logger *slog.Logger
	// Env is the new host's environment. Nil: the watchdog's own.
	Env []string
}

// Result describes one restart.
type Result struct {
	// StoppedPID is the host that was stopped; 0 when none was running.
	StoppedPID int32
	// Killed: the old host ignored SIGTERM for StopGrace and was SIGKILLed.
	Killed bool
	// HostGone: the host named had already exited, or its pid belonged to
	// another process: nothing was signalled.
	HostGone bool
	// NewPID is the started host's pid.
	NewPID int
	// Took is from the call to the new host's start.
	Took time.Duration
}

// Restarter stops the host and starts it again, detached from the
// watchdog so that it outlives it.
//
// A host it starts is its child until the host exits, so the Restarter
// reaps it: on Unix one goroutine per started host waits for SIGCHLD and
// collects that pid's exit status, ending when the host exits or at Close.
// A host still running at Close keeps running; if it exits while the
// watchdog lives on it stays a zombie, and once the watchdog exits, init
// adopts and reaps it.
type Restarter struct {
	o   Options
	log *slog.Logger

	busy sync.Mutex // held for a whole Restart; TryLock refuses a second

	// ctx ends the reapers; closed and wg.Add share mu so that Close's
	// wg.Wait never races a new reaper.
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	closed  bool
	reapers sync.WaitGroup
}

// New returns a Restarter for o, defaults filled in.
func New(o Options) *Restarter {
	if o.StopGrace <= 0 {
		o.StopGrace = DefaultStopGrace
	}
	o.Argv = append([]string(nil), o.Argv...)
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Restarter{o: o, log: log, ctx: ctx, cancel: cancel}
}

// Close stops reaping the hosts this Restarter started (they keep
// running) and waits for its goroutines to end. Safe to call twice.
func (r *Restarter) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	r.reapers.Wait()
	return nil
}

// Restart stops the host (PID 0: none is running) and starts a new one.
// Everything that can fail before the start (the command's lookup, the
// log file) is checked before the old host is touched: a host that cannot
// be started again is never stopped. Only the same run of the host is
// ever signalled: before each signal its pid must still have host.Started
// (on Linux the signal goes through a pidfd opened and then checked). When
// it does not, the host is gone: nothing is signalled, Result.HostGone is
// set and the new host is started. A zero Started is refused with
// ErrStartUnknown. ctx bounds the wait for the old host to exit; once it
// has exited, the new one is started even if ctx ends.
func (r *Restarter) Restart(ctx context.Context, host Process) (Result, error) {
	pid := host.PID
	if !r.busy.TryLock() {
		return Result{}, ErrRestartInProgress
	}
	defer r.busy.Unlock()
	if r.isClosed() {
		return Result{}, ErrClosed
	}
	if pid < 0 || pid == 1 || int(pid) == os.Getpid() {
		return Result{}, fmt.Errorf("healer: refusing to stop pid %d as the host", pid)
	}
	if pid > 0 && host.Started.IsZero() {
		return Result{}, fmt.Errorf("%w: pid %d could be another process by now, so it was left alone; "+
			"wait until the watchdog sees the host (set host.process or host.port), or restart it yourself",
			ErrStartUnknown, pid)
	}
	began := time.Now()
	cmd, err := r.command(pid)
	if err != nil {
		return Result{}, err
	}
	out, err := r.openLog()
	if err != nil {
		return Result{}, fmt.Errorf("healer: host log (host left running): %w", err)
	}
	defer out.Close() // the child holds its own copy once started
	var res Result
	if pid > 0 {
		if err := r.stop(ctx, host, &res); err != nil {
			return res, err
		}
	}
	res.NewPID, err = r.start(cmd, out)
	res.Took = time.Since(began)
	return res, err
}

func (r *Restarter) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// command resolves Argv[0] now, so a missing command is found while the
// old host still runs.
func (r *Restarter) command(pid int32) (*exec.Cmd, error) {
	if len(r.o.Argv) == 0 || r.o.Argv[0] == "" {
		return nil, ErrNoRestartCommand
	}
	name := r.o.Argv[0]
	path, err := exec.LookPath(name)
	if err != nil {
		left := "no host was running"
		if pid > 0 {
			left = fmt.Sprintf("the running host (pid %d) was left alone", pid)
		}
		return nil, fmt.Errorf("%w: %q (%w); %s; set host.restart in the config to a command that exists",
			ErrCommandNotFound, name, err, left)
	}
	cmd := exec.Command(path, r.o.Argv[1:]...)
	cmd.Args[0] = name // what the host sees as its own name, as typed
	cmd.Env = r.o.Env
	// Stdin stays nil: the null device.
	detach(cmd)
	return cmd, nil
}

// openLog opens the host log for appending; with no LogPath, the null
// device.
func (r *Restarter) openLog() (*os.File, error) {
	if r.o.LogPath == "" {
		return os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	}
	if err := os.MkdirAll(filepath.Dir(r.o.LogPath), 0o700); err != nil {
		return nil, err
	}
	// A state file: never through a planted link, never a FIFO.
	return fsutil.OpenPrivate(r.o.LogPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
}

// start runs cmd with its output into out and hands the child to a reaper.
func (r *Restarter) start(cmd *exec.Cmd, out *os.File) (int, error) {
	// A marker between runs, for whoever reads the log. Only the command's
	// name: its arguments may carry tokens.
	_, _ = fmt.Fprintf(out, "--- %s watchdog: starting %s ---\n",
		time.Now().Format(time.RFC3339), filepath.Base(cmd.Args[0]))
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		r.log.Error("host restart failed to start", "command", cmd.Args[0], "err", err)
		return 0, fmt.Errorf("healer: starting %q: %w", cmd.Args[0], err)
	}
	pid := cmd.Process.Pid
	r.log.Info("host started", "pid", pid, "command", cmd.Args[0], "log", r.o.LogPath)
	r.track(cmd.Process)
	return pid, nil
}

// stop sends SIGTERM, waits up to StopGrace, then SIGKILL, each only to
// the same run of the host (see openHandle). The host is not our child in
// general, so its exit is seen by polling.
func (r *Restarter) stop(ctx context.Context, host Process, res *Result) error {
	pid := host.PID
	h, err := openHandle(ctx, host)
	if err == nil {
		defer h.close()
		err = h.terminate(ctx)
	}
	if isGone(err) {
		r.log.Info("host already gone; nothing to stop", "pid", pid, "why", err.Error())
		res.HostGone = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("healer: stopping host pid %d (host left running): %w", pid, err)
	}
	res.StoppedPID = pid
	r.log.Info("host asked to stop", "pid", pid, "grace", r.o.StopGrace)
	gone, err := waitGone(ctx, pid, r.o.StopGrace, h.gone)
	if err != nil || gone {
		return err
	}
	r.log.Warn("host ignored SIGTERM; killing it", "pid", pid, "grace", r.o.StopGrace)
	if err := h.kill(ctx); isGone(err) {
		return nil // it exited between the last look and the kill
	} else if err != nil {
		return fmt.Errorf("healer: killing host pid %d: %w", pid, err)
	}
	res.Killed = true
	gone, err = waitGone(ctx, pid, killWait, h.gone)
	if err != nil {
		return err
	}
	if !gone {
		return fmt.Errorf("%w: pid %d still there %s after SIGKILL", ErrHostDidNotStop, pid, killWait)
	}
	return nil
}

// waitGone polls gone until it says the host has exited (true), within
// ends (false), or ctx ends (its error).
func waitGone(ctx context.Context, pid int32, within time.Duration, gone func(context.Context) (bool, error)) (bool, error) {
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	tick := time.NewTicker(stopPoll)
	defer tick.Stop()
	for {
		done, err := gone(ctx)
		if err != nil {
			return false, fmt.Errorf("healer: checking host pid %d: %w", pid, err)
		}
		if done {
			return true, nil
		}
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("healer: waiting for host pid %d to stop: %w", pid, ctx.Err())
		case <-deadline.C:
			return false, nil
		case <-tick.C:
		}
	}
}

// addReaper registers a reaper goroutine unless Close has begun.
func (r *Restarter) addReaper() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.reapers.Add(1)
	return true
}
