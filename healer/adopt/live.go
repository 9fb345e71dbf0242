package adopt

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// Adopting while a watchdog runs: which config to write, waiting until
// the running daemon serves the new proxies, and the supervisor that
// keeps them there.

// ConfigPath is the config adopt writes: the one the running daemon
// runs with, and it must be the one named (--config, WATCHDOG_CONFIG),
// when a config is named: a config the daemon does not read changes
// nothing for the host it is meant to protect.
func ConfigPath(named string, st *health.Status) (string, error) {
	running := ""
	if st != nil && st.Daemon != nil {
		running = st.Daemon.ConfigFile
	}
	switch {
	case named != "" && running != "" && !samePath(named, running):
		return "", fmt.Errorf("the running watchdog (pid %d) runs with the config %s, and adopt would write %s, which it does not read; "+
			"run adopt with --config %s, or stop that watchdog first", st.Daemon.PID, running, named, host.ShellWord(running))
	case named != "":
		return named, nil
	case running != "":
		return running, nil
	}
	return config.DefaultPath()
}

// samePath: a and b name the same file, symlinks resolved where they can be.
func samePath(a, b string) bool {
	ea, errA := filepath.EvalSymlinks(a)
	eb, errB := filepath.EvalSymlinks(b)
	if errA != nil || errB != nil {
		ea, eb = filepath.Clean(a), filepath.Clean(b)
	}
	return ea == eb
}

// servedWait bounds how long adopt waits for the running daemon to take
// its changed config and serve the new proxies, and for a daemon adopt
// started to come up and serve them.
const servedWait = 15 * time.Second

// ServedBy waits, asking status, until the running daemon serves a proxy
// on each of listens, and says why not when it does not.
func ServedBy(status func(context.Context) (*health.Status, error)) func(context.Context, []string) error {
	return func(ctx context.Context, listens []string) error {
		why, served := waitServed(ctx, status, listens, nil)
		if !served {
			return fmt.Errorf("the running watchdog did not serve the new proxies within %v: %s", servedWait, why)
		}
		return nil
	}
}

// waitServed asks status until it says each of listens is served (true),
// servedWait passes, ctx ends or gone is closed (false, and why not).
func waitServed(ctx context.Context, status func(context.Context) (*health.Status, error), listens []string, gone <-chan struct{}) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, servedWait)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		// A daemon takes a changed config by starting its run again (and
		// one just started opens its socket in a moment): its socket may
		// refuse for a moment.
		st, err := status(ctx)
		why := Unserved(st, listens)
		if why == "" {
			return "", true
		}
		if err != nil {
			why = "it does not answer (" + err.Error() + ")"
		}
		select {
		case <-ctx.Done():
			return why, false
		case <-gone:
			return "it exited", false
		case <-tick.C:
		}
	}
}

// Unserved says which of listens st does not serve, and why; "" when it
// serves all.
func Unserved(st *health.Status, listens []string) string {
	if st == nil {
		return "no answer"
	}
	for _, l := range listens {
		why := "it has not taken the changed config yet"
		for _, s := range st.Servers {
			if s.ProxyListen != "" && proxyurl.SameListen(s.ProxyListen, l) {
				if s.ProxyServed {
					why = ""
				} else {
					why = l + ": " + s.ProxyProblem
				}
			}
		}
		if why != "" {
			return why
		}
	}
	return ""
}

// Supervision is what adopt and release do about the supervisor that
// keeps the proxies there: adopt makes sure one starts the daemon at
// login and restarts it (unless NoAutostart), and both bring its list of
// sockets current with the config. Said tells the user, a line each.
type Supervision struct {
	Getenv      func(string) string // the environment, HOME included
	Socket      string              // the daemon's control socket in the state directory
	NoAutostart bool
	// NoStart: start no daemon now where none runs (adopt --no-start);
	// the supervisor installed then starts one at the next login.
	NoStart bool
	// StateDir is the state directory adopt uses: a daemon StartNow runs
	// in the background runs with it, and logs there.
	StateDir string
	// Exe is the watchdog binary a daemon StartNow starts runs; "": this
	// program's own.
	Exe string
	// Running is the daemon answering on socket, nil when none does.
	Running func(ctx context.Context, socket string) *health.DaemonStatus
	Said    []string
	// Started is the daemon StartNow started (and how), nil when none.
	Started *autostart.Started
}

// options are the supervisor's options for the config at path now.
func (sv *Supervision) options(path string) (autostart.Options, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return autostart.Options{}, err
	}
	o := autostart.Options{GOOS: runtime.GOOS, Getenv: sv.Getenv, Home: sv.Getenv("HOME"), Exe: sv.Exe}
	return autostart.ForConfig(o, cfg, sv.Socket), nil
}

// StartNow is adopt's Served where no daemon runs: it starts one now on
// the config adopt wrote, and adopt waits until it serves the new proxies
// before it rewrites a host's file, so that no host is pointed at a proxy
// nothing serves. The supervisor adopt installs starts it (unless
// --no-autostart); else autostart.Start does, through the supervisor set
// up for it, or in the background as the XDG entry runs it. A daemon it
// started that does not serve them within servedWait is stopped again,
// and the error says why, where its output is and what to do.
func (sv *Supervision) StartNow(configPath string, status func(context.Context) (*health.Status, error)) func(context.Context, []string) error {
	return func(ctx context.Context, listens []string) error {
		o, err := sv.options(configPath)
		if err != nil {
			return err
		}
		if !sv.NoAutostart {
			o.Now = true
			res, err := autostart.Supervise(ctx, o)
			if err != nil {
				return fmt.Errorf("installing the supervisor: %w", err)
			}
			sv.say(res.Did...)
			if res.Running {
				if err := ServedBy(status)(ctx, listens); err != nil {
					return err
				}
				sv.Started = &autostart.Started{Kind: res.Kind, Did: res.Did}
				return nil
			}
			sv.say(autostart.SupervisionSentence(res.Restarts, len(o.Listen)), res.Reason)
		}
		o.StateDir = sv.StateDir
		s, err := autostart.Start(ctx, o)
		if s != nil && s.Kind != autostart.XDG {
			sv.say(s.Did...)
		}
		if err != nil {
			return fmt.Errorf("starting a watchdog: %w; start one with `watchdog run`, or adopt with --no-start", err)
		}
		if why, served := waitServed(ctx, status, listens, s.Exited()); !served {
			return sv.notServed(s, why)
		}
		sv.Started = s
		return nil
	}
}

// notServed stops the daemon s that did not serve the new proxies, and
// says so, with where to look and what to do.
func (sv *Supervision) notServed(s *autostart.Started, why string) error {
	if s.Kind != autostart.XDG {
		return fmt.Errorf("the watchdog its supervisor (%s) started did not serve the new proxies within %v: %s; "+
			"`watchdog status` and the supervisor's log say why; adopt again once it runs, or adopt with --no-start", s.Kind, servedWait, why)
	}
	what := fmt.Sprintf("did not serve the new proxies within %v: %s; it was stopped", servedWait, why)
	select {
	case <-s.Exited():
		what = fmt.Sprintf("exited before it served the new proxies (%v)", s.Err())
	default:
		s.Stop()
	}
	return fmt.Errorf("the watchdog adopt started (pid %d) %s; its output is in %s; `watchdog run` in a terminal shows why; "+
		"adopt again once it runs, or adopt with --no-start", s.PID, what, s.Log)
}

// Adopted finishes an adoption (err: Adopt's): a changed config is
// taken (After); one that changed nothing, whose proxies nothing serves,
// starts the watchdog they wait for (StartNow) unless NoStart.
func (sv *Supervision) Adopted(ctx context.Context, configPath string, res Result, err error, status func(context.Context) (*health.Status, error)) error {
	switch {
	case err == nil && res.Changed:
		sv.After(ctx, configPath, true)
	case err == nil && len(res.Listens) > 0 && !sv.NoStart && sv.Running(ctx, sv.Socket) == nil:
		return sv.StartNow(configPath, status)(ctx, res.Listens)
	}
	return err
}

// After brings the supervisor current with the config once adopt or
// release changed it; adopt installs one where none is.
func (sv *Supervision) After(ctx context.Context, configPath string, adopting bool) {
	o, err := sv.options(configPath)
	if err != nil {
		return // release removed the config adopt made: nothing to hold
	}
	if adopting && !sv.NoAutostart {
		running := sv.Running(ctx, o.Control)
		o.Now = running == nil && !sv.NoStart || running != nil && running.Sockets != ""
		res, err := autostart.Supervise(ctx, o)
		if err != nil {
			sv.say("the supervisor was not installed: " + err.Error())
			return
		}
		sv.say(res.Did...)
		if !res.Restarts {
			sv.say(res.Reason)
		}
		return
	}
	res, err := autostart.SyncSockets(ctx, o)
	if err != nil {
		sv.say("the supervisor's sockets were not brought current: " + err.Error())
		return
	}
	sv.say(res.Did...)
}

// say notes lines for the user, each once.
func (sv *Supervision) say(lines ...string) {
	for _, l := range lines {
		if l != "" && !slices.Contains(sv.Said, l) {
			sv.Said = append(sv.Said, l)
		}
	}
}
