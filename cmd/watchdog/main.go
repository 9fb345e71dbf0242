// Command watchdog keeps an MCP host's sessions with its servers alive and
// says when they are lost. See docs/USAGE.md for the CLI.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// Exit codes (contract).
const (
	exitOK       = 0
	exitFailed   = 1
	exitUsage    = 2
	exitNoDaemon = 3
)

// Set by the linker (-X main.version=… -X main.commit=…).
var (
	version = "dev"
	commit  = "unknown"
)

// cli is what a command may touch of its process.
type cli struct {
	stdout, stderr io.Writer
	getenv         func(string) string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], cli{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
	stop()
	os.Exit(code)
}

type command struct {
	name, args, help string
	run              func(ctx context.Context, c cli, args []string) int
}

func commands() []command {
	return []command{
		{"run", "[--headless]", "the daemon (also with no command)", cmdRun},
		{"proxy", "", "the proxies alone: the process a supervisor runs beside the daemon (run --proxy-process)", cmdProxy},
		{"status", "[--json]", "the running daemon's view of every server and session", cmdStatus},
		{"heal", "[SERVER]", "ask the running daemon to heal now", cmdHeal},
		{"scan", "FILE... [--json]", "list session losses, idle-timeout announcements and reconnects in log files", cmdScan},
		{"probe", "URL [--json]", "classify one MCP endpoint; leaves no session behind", cmdProbe},
		{"patch", "status|apply|revert", "fix " + host.Default().Client.ShortName() + "'s session-loss bug: [--module PATH] [--force]", cmdPatch},
		{"demo", "[--fast]", "the whole loop on an embedded real MCP server and client; no install needed", cmdDemo},
		{"hosts", "[adopt|release HOST]", "every MCP host here, its servers and what protects each; adopt routes a host through the proxy and the stdio supervisor, release undoes it", cmdHosts},
		{"doctor", "[--json]", "what was discovered and what is wrong, each with the fix (no daemon needed)", cmdDoctor},
		{"stdio", "[--server NAME] -- CMD ARGS", "run a stdio MCP server for its host, starting it again when it dies", cmdStdio},
		{"autostart", "enable|disable|status [--systemd]", "start at login", cmdAutostart},
		{"timeline", "[--since 24h] [--out FILE] [--open]", "one HTML page of the journal: sessions, pings, incidents, heals", cmdTimeline},
		{"version", "", "version, commit, Go version", cmdVersion},
	}
}

func run(ctx context.Context, args []string, c cli) int {
	if len(args) == 0 {
		return cmdRun(ctx, c, nil)
	}
	switch name := args[0]; {
	case name == "-h" || name == "--help" || name == "-help" || name == "help":
		usage(c.stdout)
		return exitOK
	case len(name) > 0 && name[0] == '-':
		return cmdRun(ctx, c, args)
	}
	name := args[0]
	for _, cmd := range commands() {
		if cmd.name == name {
			return cmd.run(ctx, c, args[1:])
		}
	}
	fmt.Fprintf(c.stderr, "watchdog: unknown command %q\n\n", name)
	usage(c.stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: watchdog [command] [flags]")
	fmt.Fprintln(w, "\ncommands:")
	for _, cmd := range commands() {
		fmt.Fprintf(w, "  %-8s %-18s %s\n", cmd.name, cmd.args, cmd.help)
	}
	fmt.Fprintln(w, "\ncommon flags: --config FILE (env WATCHDOG_CONFIG), --state-dir DIR (env WATCHDOG_STATE_DIR), --json")
	fmt.Fprintln(w, "exit codes: 0 ok, 1 failed, 2 bad usage or config, 3 no daemon running")
}
