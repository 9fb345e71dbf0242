package main

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/daemon"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// servedWait bounds how long adopt waits for the running daemon to take
// its changed config and serve the new proxies.
const servedWait = 15 * time.Second

// servedBy waits, asking status, until the running daemon serves a proxy
// on each of listens, and says why not when it does not.
func servedBy(status func(context.Context) (*health.Status, error)) func(context.Context, []string) error {
	return func(ctx context.Context, listens []string) error {
		ctx, cancel := context.WithTimeout(ctx, servedWait)
		defer cancel()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			// A daemon takes a changed config by starting its run again:
			// its socket may refuse for a moment.
			st, err := status(ctx)
			why := unserved(st, listens)
			if why == "" {
				return nil
			}
			if err != nil {
				why = "it does not answer (" + err.Error() + ")"
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("the running watchdog did not serve the new proxies within %v: %s", servedWait, why)
			case <-tick.C:
			}
		}
	}
}

// unserved says which of listens st does not serve, and why; "" when it
// serves all.
func unserved(st *health.Status, listens []string) string {
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

// supervision is what adopt and release do about the supervisor that
// keeps the proxies there: adopt makes sure one starts the daemon at
// login and restarts it (unless --no-autostart), and both bring its list
// of sockets current with the config. Said tells the user, a line each.
type supervision struct {
	c           cli
	stateDir    string
	noAutostart bool
	said        []string
}

// options are the supervisor's options for the config at path now.
func (sv *supervision) options(path string) (autostart.Options, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return autostart.Options{}, err
	}
	o := autostart.Options{GOOS: runtime.GOOS, Getenv: sv.c.getenv, Home: sv.c.getenv("HOME")}
	return autostart.ForConfig(o, cfg, daemon.SocketPath(sv.stateDir)), nil
}

// startNow is adopt's Served where no daemon runs: the supervisor starts
// one now on the config adopt wrote, and adopt waits until it serves the
// new proxies before it rewrites a host's file. Where no supervisor can
// (no systemd, launchd, or --no-autostart), it returns at once: the host
// then depends on `watchdog run`, which adoptDone says.
func (sv *supervision) startNow(configPath string, status func(context.Context) (*health.Status, error)) func(context.Context, []string) error {
	return func(ctx context.Context, listens []string) error {
		if sv.noAutostart {
			return nil
		}
		o, err := sv.options(configPath)
		if err != nil {
			return err
		}
		o.Now = true
		res, err := autostart.Supervise(ctx, o)
		if err != nil {
			return fmt.Errorf("installing the supervisor: %w", err)
		}
		sv.say(res.Did...)
		if !res.Running {
			sv.say(autostart.SupervisionSentence(res.Restarts, len(o.Listen)), res.Reason)
			return nil
		}
		return servedBy(status)(ctx, listens)
	}
}

// after brings the supervisor current with the config once adopt or
// release changed it; adopt installs one where none is.
func (sv *supervision) after(ctx context.Context, configPath string, adopting bool) {
	o, err := sv.options(configPath)
	if err != nil {
		return // release removed the config adopt made: nothing to hold
	}
	if adopting && !sv.noAutostart {
		running := runningDaemon(ctx, o.Control)
		o.Now = running == nil || running.Sockets != ""
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
func (sv *supervision) say(lines ...string) {
	for _, l := range lines {
		if l != "" && !slices.Contains(sv.said, l) {
			sv.said = append(sv.said, l)
		}
	}
}
