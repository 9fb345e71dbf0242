package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/internal/host"
)

// cmdPatch is `watchdog patch status|apply|revert [--module PATH] [--force]`.
func cmdPatch(_ context.Context, c cli, args []string) int {
	var co common
	fs := newFlagSet("patch", c, &co)
	client := host.Default().Client // the flags are read before the config
	module := fs.String("module", "", client.ShortName()+"'s "+client.Entry+" (or its package folder); default: host.client_module, then discovery")
	force := fs.Bool("force", false, "apply to an unknown version (every part whose anchors are found, when the core fix is among them); revert a patched file that was changed since")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) != 1 || (pos[0] != "status" && pos[0] != "apply" && pos[0] != "revert") {
		fmt.Fprintln(c.stderr, "usage: watchdog patch status|apply|revert [--module PATH] [--force] [--json]")
		return exitUsage
	}
	action := pos[0]
	cfg, _, code := loadConfig(c, co)
	if code != exitOK {
		return code
	}
	home, err := os.UserHomeDir()
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog patch: home directory: %v\n", err)
		return exitFailed
	}
	prof := cfg.MainHost().Profile()
	found, err := clientpatch.Find(clientpatch.FindOptions{Host: prof, Module: *module, ConfigModule: cfg.MainHost().ClientModule, Home: home, Getenv: c.getenv})
	if err != nil {
		st := clientpatch.Status{Module: *module, State: clientpatch.StateNotFound, Advice: "pass --module PATH/lib/index.js or set host.client_module in the config"}
		printPatch(c, co.json, st)
		fmt.Fprintf(c.stderr, "watchdog patch %s: %v\n", action, err)
		return exitFailed
	}
	target := found[0]
	o := clientpatch.InstallOptions{Host: prof, Force: *force, Home: home}
	var st clientpatch.Status
	switch action {
	case "status":
		st, err = clientpatch.Inspect(target, clientpatch.InspectOptions{Host: prof, Home: home})
	case "apply":
		st, err = clientpatch.Install(target, o)
	case "revert":
		st, err = clientpatch.Revert(target, o)
	}
	printPatch(c, co.json, st)
	if len(found) > 1 && *module == "" && cfg.MainHost().ClientModule == "" {
		fmt.Fprintf(c.stderr, "watchdog patch: acted on %s; also installed (pick one with --module): %s\n", target, strings.Join(found[1:], ", "))
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog patch %s: %v\n", action, err)
		return patchExit(err)
	}
	return exitOK
}

// patchExit: a refused input is exit 2, anything else that failed is 1.
func patchExit(err error) int {
	if clientpatch.Refused(err) {
		return exitUsage
	}
	return exitFailed
}

func printPatch(c cli, asJSON bool, st clientpatch.Status) {
	if asJSON {
		_ = writeJSON(c.stdout, st)
		return
	}
	_ = st.WriteText(c.stdout)
}
