package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
)

// cmdAutostart is `watchdog autostart enable|disable|status [--systemd]`.
func cmdAutostart(_ context.Context, c cli, args []string) int {
	var co common
	fs := newFlagSet("autostart", c, &co)
	systemd := fs.Bool("systemd", false, "a systemd user unit instead of the XDG autostart entry (Linux)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) != 1 || (pos[0] != "enable" && pos[0] != "disable" && pos[0] != "status") {
		fmt.Fprintln(c.stderr, "usage: watchdog autostart enable|disable|status [--systemd] [--json]")
		return exitUsage
	}
	o := autostart.Options{GOOS: runtime.GOOS, Getenv: c.getenv, Home: c.getenv("HOME")}
	if *systemd {
		o.Kind = autostart.Systemd
	}
	switch pos[0] {
	case "enable":
		return autostartEnable(c, co, o)
	case "disable":
		return autostartDisable(c, co, o)
	}
	return autostartStatus(c, co, o)
}

func autostartEnable(c cli, co common, o autostart.Options) int {
	p, err := autostart.Enable(o)
	if err != nil {
		return autostartErr(c, "enable", err)
	}
	st, err := autostart.Status(o)
	if err != nil {
		return autostartErr(c, "enable", err)
	}
	if co.json {
		return printAutostartJSON(c, st)
	}
	fmt.Fprintf(c.stdout, "autostart enabled (%s): %s\nstarts: %s run\n", st.Kind, p, st.Exe)
	if st.Kind == autostart.Systemd {
		fmt.Fprintf(c.stdout, "next, to start it at login and now: %s\n", autostart.SystemdEnableCommand)
	}
	return exitOK
}

func autostartDisable(c cli, co common, o autostart.Options) int {
	p, err := autostart.Disable(o)
	if err != nil {
		return autostartErr(c, "disable", err)
	}
	if co.json {
		return printAutostartJSON(c, autostart.State{Kind: kindOf(o), Path: p})
	}
	fmt.Fprintf(c.stdout, "autostart disabled: %s removed\n", p)
	if o.Kind == autostart.Systemd {
		fmt.Fprintln(c.stdout, "a running unit keeps running until: systemctl --user stop mcp-watchdog.service; systemctl --user daemon-reload")
	}
	return exitOK
}

func autostartStatus(c cli, co common, o autostart.Options) int {
	st, err := autostart.Status(o)
	if err != nil {
		return autostartErr(c, "status", err)
	}
	if co.json {
		return printAutostartJSON(c, st)
	}
	switch {
	case !st.Enabled:
		fmt.Fprintf(c.stdout, "autostart disabled (%s): %s not present\n", st.Kind, st.Path)
	case st.PointsHere:
		fmt.Fprintf(c.stdout, "autostart enabled (%s): %s\nstarts this binary: %s\n", st.Kind, st.Path, st.Exe)
	default:
		fmt.Fprintf(c.stdout, "autostart enabled (%s): %s\nstarts %q, NOT this binary; point it here with: watchdog autostart enable%s\n",
			st.Kind, st.Path, st.Exe, systemdFlag(st.Kind))
	}
	if st.Enabled && st.Kind == autostart.Systemd && !st.Linked {
		fmt.Fprintf(c.stdout, "not linked to the login session yet: %s\n", autostart.SystemdEnableCommand)
	}
	return exitOK
}

func systemdFlag(k autostart.Kind) string {
	if k == autostart.Systemd {
		return " --systemd"
	}
	return ""
}

// kindOf is the kind o resolves to, for reports.
func kindOf(o autostart.Options) autostart.Kind {
	if o.Kind != autostart.Auto {
		return o.Kind
	}
	if o.GOOS == "darwin" {
		return autostart.LaunchAgent
	}
	return autostart.XDG
}

func printAutostartJSON(c cli, st autostart.State) int {
	b, _ := json.Marshal(map[string]any{
		"kind": st.Kind.String(), "path": st.Path, "enabled": st.Enabled, "exe": st.Exe,
		"points_here": st.PointsHere, "current": st.Current, "linked": st.Linked,
	})
	fmt.Fprintln(c.stdout, string(b))
	return exitOK
}

func autostartErr(c cli, action string, err error) int {
	fmt.Fprintf(c.stderr, "watchdog autostart %s: %v\n", action, err)
	if errors.Is(err, autostart.ErrUnsupported) {
		return exitUsage
	}
	return exitFailed
}
