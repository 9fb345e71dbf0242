package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// cmdAutostart is `watchdog autostart enable|disable|status [--systemd|--xdg]`.
func cmdAutostart(ctx context.Context, c cli, args []string) int {
	var co common
	fs := newFlagSet("autostart", c, &co)
	systemd := fs.Bool("systemd", false, "the systemd user unit and socket unit, even where no user manager runs now (Linux)")
	xdg := fs.Bool("xdg", false, "the XDG autostart entry, which nothing restarts (Linux)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) != 1 || (pos[0] != "enable" && pos[0] != "disable" && pos[0] != "status") || *systemd && *xdg {
		fmt.Fprintln(c.stderr, "usage: watchdog autostart enable|disable|status [--systemd|--xdg] [--json]")
		return exitUsage
	}
	o := autostart.Options{GOOS: runtime.GOOS, Getenv: c.getenv, Home: c.getenv("HOME")}
	if pos[0] != "disable" { // disabling needs no config, and works with a broken one
		cfg, stateDir, code := loadConfig(c, co)
		if code != exitOK {
			return code
		}
		o = autostart.ForConfig(o, cfg, control.SocketPath(stateDir))
		if co.stateDir != "" || c.getenv("WATCHDOG_STATE_DIR") != "" {
			o.StateDir = stateDir
		}
	}
	switch {
	case *systemd:
		o.Kind = autostart.Systemd
	case *xdg:
		o.Kind = autostart.XDG
	}
	switch pos[0] {
	case "enable":
		return autostartEnable(ctx, c, co, o)
	case "disable":
		return autostartDisable(ctx, c, co, o)
	}
	return autostartStatus(c, co, o)
}

// autostartEnable installs the supervisor and starts the daemon under it,
// unless a watchdog it did not start runs now: their sockets would clash,
// so the supervisor takes over at the next login.
func autostartEnable(ctx context.Context, c cli, co common, o autostart.Options) int {
	running := runningDaemon(ctx, o.Control)
	o.Now = running == nil || running.Sockets != ""
	res, err := autostart.Supervise(ctx, o)
	if err != nil {
		return autostartErr(c, "enable", err)
	}
	if co.json {
		st, _ := autostart.Status(o)
		return printAutostartJSON(c, st, &res)
	}
	other := 0
	if running != nil && running.Sockets == "" {
		other = running.PID
	}
	autostart.WriteEnabled(c.stdout, res, len(o.Listen), other)
	return exitOK
}

// runningDaemon is the daemon answering on the control socket, nil when
// none does.
func runningDaemon(ctx context.Context, socket string) *health.DaemonStatus {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := statusAt(socket)(ctx)
	switch {
	case err != nil:
		return nil
	case st.Daemon == nil:
		return &health.DaemonStatus{}
	}
	return st.Daemon
}

func autostartDisable(ctx context.Context, c cli, co common, o autostart.Options) int {
	res, err := autostart.Unsupervise(ctx, o)
	if err != nil {
		return autostartErr(c, "disable", err)
	}
	if co.json {
		return printAutostartJSON(c, autostart.State{Kind: res.Kind}, &res)
	}
	autostart.WriteDisabled(c.stdout, res)
	return exitOK
}

func autostartStatus(c cli, co common, o autostart.Options) int {
	st, err := autostart.Status(o)
	if err != nil {
		return autostartErr(c, "status", err)
	}
	if co.json {
		return printAutostartJSON(c, st, nil)
	}
	autostart.WriteStatus(c.stdout, st, len(o.Listen))
	return exitOK
}

func printAutostartJSON(c cli, st autostart.State, res *autostart.Result) int {
	fmt.Fprintln(c.stdout, string(autostart.JSON(st, res)))
	return exitOK
}

func autostartErr(c cli, action string, err error) int {
	fmt.Fprintf(c.stderr, "watchdog autostart %s: %v\n", action, err)
	if errors.Is(err, autostart.ErrUnsupported) {
		return exitUsage
	}
	return exitFailed
}
