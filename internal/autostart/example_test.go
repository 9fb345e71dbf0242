package autostart_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
	"github.com/mcpwatchdog/watchdog/internal/config"
)

// A throwaway home with a systemd user manager's private socket in its
// runtime directory, so Supervise takes systemd; the commands are printed
// instead of run (Options.Run), as `watchdog hosts adopt` would run them.
func exampleHome() (o autostart.Options, cleanup func()) {
	dir, _ := os.MkdirTemp("", "ex")
	rt := filepath.Join(dir, "run")
	_ = os.MkdirAll(filepath.Join(rt, "systemd"), 0o700)
	ln, _ := net.Listen("unix", filepath.Join(rt, "systemd", "private"))
	exe := filepath.Join(dir, "watchdog")
	_ = os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	getenv := func(k string) string {
		return map[string]string{"XDG_RUNTIME_DIR": rt, "XDG_CONFIG_HOME": filepath.Join(dir, "config")}[k]
	}
	run := func(_ context.Context, name string, args ...string) ([]byte, error) {
		fmt.Println("  run:", name, strings.Join(args, " "))
		return nil, nil
	}
	o = autostart.Options{Home: dir, Exe: exe, GOOS: "linux", Getenv: getenv, Run: run,
		Control: filepath.Join(dir, "state", "watchdog.sock")}
	return o, func() { _ = ln.Close(); _ = os.RemoveAll(dir) }
}

// Supervise makes sure something starts the daemon at login and restarts
// it after every exit, holding its proxies' sockets meanwhile. adopt calls
// it after writing the config, with the config's proxy_listen addresses
// and the running daemon's control socket; Now only when no watchdog runs
// that the supervisor did not start.
func ExampleSupervise() {
	o, cleanup := exampleHome()
	defer cleanup()
	cfg := config.Config{Path: "/home/u/work.toml", Servers: []config.Server{{Name: "mem", ProxyListen: "127.0.0.1:14300"}}}
	o = autostart.ForConfig(o, cfg, o.Control) // --config /home/u/work.toml, its proxy_listen, its control socket
	o.Now = true
	res, err := autostart.Supervise(context.Background(), o)
	if err != nil {
		fmt.Println("cannot write the startup files:", err)
		return
	}
	fmt.Println("supervisor:", res.Kind, "at login:", res.AtLogin, "restarts:", res.Restarts, "running:", res.Running)
	if !res.Restarts {
		fmt.Println("hosts depend on a running watchdog:", res.Reason)
	}
	// Output:
	//   run: systemctl --user daemon-reload
	//   run: systemctl --user enable mcp-watchdog.socket mcp-watchdog.service mcp-watchdog-proxy.socket mcp-watchdog-proxy.service
	//   run: systemctl --user restart mcp-watchdog.socket mcp-watchdog.service mcp-watchdog-proxy.socket mcp-watchdog-proxy.service
	// supervisor: systemd at login: true restarts: true running: true
}

// SyncSockets brings the installed supervisor's socket list current after
// adopt or release changed the config's proxy_listen addresses. The
// socket unit (or the LaunchAgent) is rewritten and, only when the list
// changed, systemd reloads it and the daemon restarts on the new sockets.
func ExampleSyncSockets() {
	o, cleanup := exampleHome()
	defer cleanup()
	o.Listen = []string{"127.0.0.1:14300"}
	quiet := o
	quiet.Run = func(context.Context, string, ...string) ([]byte, error) { return nil, nil }
	if _, err := autostart.Supervise(context.Background(), quiet); err != nil {
		fmt.Println(err)
		return
	}
	o.Listen = append(o.Listen, "127.0.0.1:14301") // adopt added a server
	res, err := autostart.SyncSockets(context.Background(), o)
	if err != nil {
		fmt.Println("cannot write the socket list:", err)
		return
	}
	fmt.Println("changed:", res.Changed, "list changed:", res.ListChanged, "holds:", len(res.Sockets), "sockets")
	res, _ = autostart.SyncSockets(context.Background(), o) // nothing new: nothing run
	fmt.Println("again:", res.Note)
	// Output:
	//   run: systemctl --user daemon-reload
	//   run: systemctl --user try-restart mcp-watchdog.socket mcp-watchdog.service mcp-watchdog-proxy.socket mcp-watchdog-proxy.service
	// changed: true list changed: true holds: 3 sockets
	// again: the socket units are current
}
