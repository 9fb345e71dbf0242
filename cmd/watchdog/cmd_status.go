package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/statusview"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

const controlTimeout = 5 * time.Second

func cmdStatus(ctx context.Context, c cli, args []string) int {
	var co common
	fs := newFlagSet("status", c, &co)
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	_, stateDir, code := loadConfig(c, co)
	if code != exitOK {
		return code
	}
	ctx, cancel := context.WithTimeout(ctx, controlTimeout)
	defer cancel()
	if code := checkStateDir(c, stateDir); code != exitOK {
		return code
	}
	raw, err := control.Dial(control.SocketPath(stateDir)).Status(ctx)
	if err != nil {
		return controlFailure(c, err)
	}
	if co.json {
		writeRawJSON(c.stdout, raw)
		return exitOK
	}
	var st health.Status
	if err := json.Unmarshal(raw, &st); err != nil {
		fmt.Fprintf(c.stderr, "watchdog: the daemon's status does not parse: %v\n", err)
		return exitFailed
	}
	statusview.Write(c.stdout, st)
	return exitOK
}

func cmdHeal(ctx context.Context, c cli, args []string) int {
	var co common
	fs := newFlagSet("heal", c, &co)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) > 1 {
		fmt.Fprintln(c.stderr, "watchdog heal: at most one SERVER")
		return exitUsage
	}
	_, stateDir, code := loadConfig(c, co)
	if code != exitOK {
		return code
	}
	server := ""
	if len(pos) == 1 {
		server = pos[0]
	}
	if code := checkStateDir(c, stateDir); code != exitOK {
		return code
	}
	ctx, cancel := context.WithTimeout(ctx, controlTimeout)
	defer cancel()
	raw, err := control.Dial(control.SocketPath(stateDir)).Heal(ctx, server)
	if err != nil {
		return controlFailure(c, err)
	}
	writeRawJSON(c.stdout, raw)
	return exitOK
}

// checkStateDir: a state dir that is missing or not a directory holds no
// daemon's socket (exit 3).
func checkStateDir(c cli, stateDir string) int {
	if err := control.CheckStateDir(stateDir); err != nil {
		fmt.Fprintf(c.stderr, "watchdog: %v\nwatchdog: start it with `watchdog run`, or pass the --state-dir the daemon uses\n", err)
		return exitNoDaemon
	}
	return exitOK
}

func controlFailure(c cli, err error) int {
	fmt.Fprintf(c.stderr, "watchdog: %s\n", textsafe.Escape(err.Error()))
	switch {
	case errors.Is(err, control.ErrNoDaemon):
		fmt.Fprintln(c.stderr, "watchdog: start it with `watchdog run` (or check --state-dir)")
		return exitNoDaemon
	case errors.Is(err, control.ErrUnknownServer):
		return exitUsage
	}
	return exitFailed
}
