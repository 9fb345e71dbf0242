package autostart

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/instance"
)

// DaemonLog is the file in the state directory that a daemon Start runs
// in the background writes its output to (appended).
const DaemonLog = "daemon.log"

// stopWait bounds how long Started.Stop waits for a background daemon to
// end after SIGTERM before it kills it.
const stopWait = 5 * time.Second

// ErrNoStateDir: Start has no state directory for a background daemon.
var ErrNoStateDir = errors.New("no state directory for the daemon's log")

// Started is the daemon Start started, and how.
type Started struct {
	// Kind is what started it: Systemd or LaunchAgent, the supervisor set
	// up for it; XDG, a background process run as the XDG entry runs it.
	Kind Kind
	// Did lists each step taken: a command run, a process started.
	Did []string
	// PID and Log are the background daemon's pid and the file its output
	// goes to (XDG only; 0 and "" under a supervisor).
	PID int
	Log string

	proc     *os.Process
	exited   chan struct{}
	err      error
	stateDir string
	proxy    int // the proxy process that ran before the start (0 none)
	argv     []string
}

// Start starts the daemon now, the way what is set up to start it would:
// the installed systemd user units (systemctl --user start) where a user
// manager runs for the user, the installed LaunchAgents on macOS
// (launchctl kickstart when loaded, bootstrap when not), and elsewhere a
// background process exactly as the XDG autostart entry runs it
// (Spec.Argv), in a session of its own, stdin /dev/null, its output
// appended to DaemonLog in o.StateDir (which that needs). It does not
// wait for the daemon to serve: its status says when it does.
func Start(ctx context.Context, o Options) (*Started, error) {
	r, err := resolve(o)
	if err != nil {
		return nil, err
	}
	if !exists(r.path()) {
		return r.background()
	}
	switch {
	case r.kind == Systemd && userSystemd(r.getenv):
		s, res := &Started{Kind: Systemd}, Result{}
		err := r.systemctl(ctx, &res, append([]string{"start"}, r.installedUnits()...)...)
		s.Did = res.Did
		if err != nil {
			return s, errors.New(res.Reason)
		}
		return s, nil
	case r.kind == LaunchAgent && r.goos == "darwin":
		s, res := &Started{Kind: LaunchAgent}, Result{}
		err := r.kick(ctx, &res, BundleID, r.path())
		if err == nil && exists(r.proxyPath()) {
			err = r.kick(ctx, &res, ProxyLabel, r.proxyPath())
		}
		s.Did = res.Did
		if err != nil {
			return s, errors.New(res.Reason)
		}
		return s, nil
	}
	return r.background()
}

// kick starts the LaunchAgent label at path now: kickstart when launchd
// has it loaded (a no-op while it runs), else bootstrap (RunAtLoad).
func (r resolved) kick(ctx context.Context, res *Result, label, path string) error {
	target := r.domain() + "/" + label
	if _, err := r.run(ctx, "launchctl", "print", target); err == nil {
		return r.step(ctx, res, "launchctl", "kickstart", target)
	}
	return r.step(ctx, res, "launchctl", "bootstrap", r.domain(), path)
}

// background runs the daemon as the XDG entry does, detached: it is not
// ended with the caller, and nothing restarts it.
func (r resolved) background() (*Started, error) {
	if r.StateDir == "" {
		return nil, fmt.Errorf("autostart: %w", ErrNoStateDir)
	}
	if err := fsutil.PrivateDir(r.StateDir); err != nil {
		return nil, fmt.Errorf("autostart: %w", err)
	}
	logPath := filepath.Join(r.StateDir, DaemonLog)
	logf, err := fsutil.OpenPrivate(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
	if err != nil {
		return nil, fmt.Errorf("autostart: the daemon's log: %w", err)
	}
	defer logf.Close()
	s := &Started{Kind: XDG, Log: logPath, exited: make(chan struct{}), stateDir: r.StateDir, proxy: proxyHolder(r.StateDir)}
	argv := r.spec().Argv(XDG)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = r.home, append(os.Environ(), "HOME="+r.home)
	cmd.Stdout, cmd.Stderr = logf, logf // stdin: /dev/null
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("autostart: starting the daemon: %w", err)
	}
	s.proc, s.PID = cmd.Process, cmd.Process.Pid
	s.argv = argv
	s.Did = []string{"started " + s.String()}
	go func() { s.err = cmd.Wait(); close(s.exited) }()
	return s, nil
}

// Exited is closed once the background daemon has exited (Err says
// how); nil under a supervisor, which restarts the daemon.
func (s *Started) Exited() <-chan struct{} {
	if s == nil || s.exited == nil {
		return nil
	}
	return s.exited
}

// Err is how the background daemon exited, once Exited is closed.
func (s *Started) Err() error {
	select {
	case <-s.Exited():
		return s.err
	default:
		return nil
	}
}

// Stop ends the background daemon (SIGTERM, killed after stopWait) and
// then the proxy process it spawned, when one holds the proxy lock that
// did not before Start. Under a supervisor it does nothing: the
// supervisor owns the daemon.
func (s *Started) Stop() {
	if s == nil || s.proc == nil {
		return
	}
	if terminate(s.proc) != nil {
		_ = s.proc.Kill()
	}
	t := time.NewTimer(stopWait)
	defer t.Stop()
	select {
	case <-s.exited:
	case <-t.C:
		_ = s.proc.Kill()
		<-s.exited
	}
	if pid := proxyHolder(s.stateDir); pid > 0 && pid != s.proxy {
		if p, err := os.FindProcess(pid); err == nil && terminate(p) != nil {
			_ = p.Kill()
		}
	}
}

// proxyHolder is the pid of the proxy process holding the proxy lock of
// stateDir; 0 when none does (or its pid is not known).
func proxyHolder(stateDir string) int {
	l, err := instance.AcquireProxy(stateDir)
	if err == nil {
		_ = l.Release()
		return 0
	}
	if re, ok := errors.AsType[*instance.RunningError](err); ok {
		return re.PID
	}
	return 0
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return !errors.Is(err, fs.ErrNotExist)
}

// String says what was started, for a person.
func (s *Started) String() string {
	if s.Kind == XDG {
		return fmt.Sprintf("a watchdog in the background (pid %d), as the XDG autostart entry runs it: %s; its output goes to %s",
			s.PID, strings.Join(s.argv, " "), s.Log)
	}
	return "the watchdog through its supervisor (" + s.Kind.String() + ")"
}
