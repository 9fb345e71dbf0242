package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/health"
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
	raw, err := control.Dial(daemon.SocketPath(stateDir)).Status(ctx)
	if err != nil {
		return controlFailure(c, err)
	}
	if co.json {
		fmt.Fprintln(c.stdout, string(raw))
		return exitOK
	}
	var st health.Status
	if err := json.Unmarshal(raw, &st); err != nil {
		fmt.Fprintf(c.stderr, "watchdog: the daemon's status does not parse: %v\n", err)
		return exitFailed
	}
	writeStatus(c.stdout, st)
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
	ctx, cancel := context.WithTimeout(ctx, controlTimeout)
	defer cancel()
	raw, err := control.Dial(daemon.SocketPath(stateDir)).Heal(ctx, server)
	if err != nil {
		return controlFailure(c, err)
	}
	fmt.Fprintln(c.stdout, string(raw))
	return exitOK
}

func controlFailure(c cli, err error) int {
	fmt.Fprintf(c.stderr, "watchdog: %v\n", err)
	switch {
	case errors.Is(err, control.ErrNoDaemon):
		fmt.Fprintln(c.stderr, "watchdog: start it with `watchdog run` (or check --state-dir)")
		return exitNoDaemon
	case errors.Is(err, control.ErrUnknownServer):
		return exitUsage
	}
	return exitFailed
}

func writeStatus(w io.Writer, st health.Status) {
	running := "not running"
	if st.Host.Running {
		running = fmt.Sprintf("running (pid %d)", st.Host.PID)
	}
	fmt.Fprintf(w, "host %s: %s\n", st.Host.Name, running)
	for _, s := range st.Servers {
		fmt.Fprintf(w, "server %s (%s): %s, %s, idle timeout %s, host session %s\n", s.Name, s.URL, s.State, s.Mode,
			time.Duration(s.IdleTimeoutSeconds)*time.Second, sourceLabel(s.Source))
		for _, sess := range s.Sessions {
			mark := " "
			if sess.Current {
				mark = "*"
			}
			fmt.Fprintf(w, "  %s %-12s %-20s %-8s idle %s, expires in %s\n", mark, sess.ID, trunc(sess.Client, 20), sess.State,
				time.Duration(sess.IdleSeconds)*time.Second, time.Duration(sess.ExpiresInSeconds)*time.Second)
		}
		if s.SessionsOmitted > 0 {
			fmt.Fprintf(w, "    … and %d more session(s) not listed (at most %d are; the current and troubled ones first)\n",
				s.SessionsOmitted, health.MaxStatusSessions)
		}
	}
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimSpace(s[:n-1]) + "…"
}

// sourceLabel says where the judgement of the host's session comes from.
func sourceLabel(src health.IdentitySource) string {
	if src == health.SourceBeacon {
		return "from the client's beacon"
	}
	return "inferred from the store"
}
