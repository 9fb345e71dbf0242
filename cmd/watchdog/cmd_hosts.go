package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/mcpwatchdog/watchdog/healer/adopt"
	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/doctor"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/hostsview"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

// cmdHosts lists every host found and what protects each of its servers;
// `hosts adopt` and `hosts release` route a host through the proxy and back.
func cmdHosts(ctx context.Context, c cli, args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "adopt":
			return cmdHostsAdopt(ctx, c, args[1:])
		case "release":
			return cmdHostsRelease(ctx, c, args[1:])
		}
	}
	var co common
	fs := newFlagSet("hosts", c, &co)
	offline := fs.Bool("offline", false, "do not probe the servers (stateless and OAuth servers then show as exposed)")
	var projects multiFlag
	fs.Var(&projects, "project", "look in this project folder too (repeatable; the current directory always is)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) > 0 {
		fmt.Fprintf(c.stderr, "watchdog hosts: unknown subcommand %q; use adopt HOST or release HOST, or no subcommand to list the hosts\n", pos[0])
		return exitUsage
	}
	cfg, stateDir, code := loadConfig(c, co)
	if code != exitOK {
		return code
	}
	fo := findOptions(c, projects)
	found := find.Discover(ctx, fo)
	client := version
	if *offline {
		client = doctor.Offline
	}
	st, _ := daemon.ServedStatus(ctx, stateDir) // the proxy process's word while no daemon answers
	facts := doctor.HostFacts(ctx, doctor.FactsInput{Config: cfg, Found: found, ClientVersion: client, Status: st, StateDir: stateDir})
	doc := hostsview.Build(found, facts, doctor.Redact)
	if co.json {
		_ = writeJSON(c.stdout, doc)
	} else {
		doc.WriteText(c.stdout)
	}
	return exitOK
}

// findOptions: this machine's home, system, environment and processes;
// the project folders looked in are the current directory and projects.
func findOptions(c cli, projects []string) find.Options {
	home := c.getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	var dirs []string
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	for _, p := range projects {
		if abs, err := filepath.Abs(p); err == nil {
			dirs = append(dirs, abs)
		}
	}
	return find.Options{Home: home, GOOS: runtime.GOOS, Getenv: c.getenv, Running: daemon.HostRunning, Projects: dirs}
}

// daemonStatus asks the daemon of stateDir for its status document; an
// error (control.ErrNoDaemon) when none answers.
func daemonStatus(stateDir string) func(ctx context.Context) (*health.Status, error) {
	return statusAt(control.SocketPath(stateDir))
}

// statusAt asks the daemon on the control socket for its status document.
func statusAt(socket string) func(ctx context.Context) (*health.Status, error) {
	return func(ctx context.Context) (*health.Status, error) {
		raw, err := control.Dial(socket).Status(ctx)
		if err != nil {
			return nil, err
		}
		var st health.Status
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, fmt.Errorf("the daemon's status: %w", err)
		}
		return &st, nil
	}
}

// multiFlag is a flag that may be given more than once.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// hostFlags are the flags adopt and release share.
type hostFlags struct {
	common
	servers, projects multiFlag
	force             *bool
	noAutostart       *bool // adopt only
	noStart           *bool // adopt only
	all               *bool // release only
}

func newHostFlags(name string, c cli, force string) (*flag.FlagSet, *hostFlags) {
	hf := &hostFlags{}
	fs := newFlagSet(name, c, &hf.common)
	fs.Var(&hf.servers, "server", "only this server of the host (repeatable)")
	fs.Var(&hf.projects, "project", "the host's files in this project folder too (repeatable; the current directory always is)")
	hf.force = fs.Bool("force", false, force)
	return fs, hf
}

// cmdHostsAdopt routes a host's HTTP servers through the proxy and runs its stdio servers under `watchdog stdio`.
func cmdHostsAdopt(ctx context.Context, c cli, args []string) int {
	fs, hf := newHostFlags("hosts adopt", c, "adopt a server named with --server even though it signs in with OAuth (its sign-in will fail)")
	hf.noAutostart = fs.Bool("no-autostart", false, "leave start at login as it is (hosts then depend on a running watchdog)")
	hf.noStart = fs.Bool("no-start", false, "with no watchdog running, start none now (the adopted servers then fail until one runs)")
	o, sv, code := adoptOptions(ctx, c, fs, hf, args)
	if code != exitOK || o == nil {
		return code
	}
	res, err := adopt.Adopt(ctx, *o)
	err = sv.Adopted(ctx, o.ConfigPath, res, err, daemonStatus(o.StateDir))
	return adoptDone(c, *o, sv, res, err, "adopt")
}

// cmdHostsRelease puts a host's original URLs and commands back; --all
// every adopted host's (what removing the package runs).
func cmdHostsRelease(ctx context.Context, c cli, args []string) int {
	fs, hf := newHostFlags("hosts release", c, "forget the values changed since adopt (never written over)")
	hf.all = fs.Bool("all", false, "release every adopted host (what removing the package runs)")
	o, sv, code := adoptOptions(ctx, c, fs, hf, args)
	if code != exitOK || o == nil {
		return code
	}
	if *hf.all {
		results, err := adopt.ReleaseAll(ctx, *o, func(p host.Profile) []string { return find.Paths(p, findOptions(c, hf.projects)) })
		for _, name := range slices.Sorted(maps.Keys(results)) {
			p, _ := host.Lookup(name)
			results[name].WriteText(c.stdout, p)
		}
		return adoptDone(c, *o, sv, adopt.Result{}, err, "release --all")
	}
	res, err := adopt.Release(ctx, *o)
	if err == nil && res.Changed {
		sv.After(ctx, o.ConfigPath, false)
	}
	return adoptDone(c, *o, sv, res, err, "release")
}

// adoptOptions parses HOST and the flags, and finds the host's files, the
// config the running watchdog uses (or the one it would), the state
// directory and the proxy's secret. nil options with exitOK: help was shown.
func adoptOptions(ctx context.Context, c cli, fs *flag.FlagSet, hf *hostFlags, args []string) (*adopt.Options, *adopt.Supervision, int) {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	all := hf.all != nil && *hf.all
	if len(pos) != 1 && !(all && len(pos) == 0) {
		more := ""
		if hf.all != nil {
			more = ", or --all"
		}
		fmt.Fprintf(c.stderr, "watchdog %s: name one host, e.g. %q (known: %s)%s\n", fs.Name(), host.Default().Name, strings.Join(host.Names(), ", "), more)
		return nil, nil, exitUsage
	}
	p, ok := host.Profile{}, all
	if !all {
		p, ok = host.Lookup(pos[0])
	}
	if !ok {
		fmt.Fprintf(c.stderr, "watchdog %s: %q is not a host the watchdog knows; known: %s\n", fs.Name(), pos[0], strings.Join(host.Names(), ", "))
		return nil, nil, exitUsage
	}
	stateDir, code := adoptStateDir(c, hf.common)
	if code != exitOK {
		return nil, nil, code
	}
	st, _ := daemonStatus(stateDir)(ctx)
	cfgPath, err := adopt.ConfigPath(hf.configPath, st)
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog %s: %s\n", fs.Name(), textsafe.Escape(err.Error()))
		return nil, nil, exitUsage
	}
	secret, err := proxy.LoadSecret(stateDir)
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog %s: %v\n", fs.Name(), err)
		return nil, nil, exitFailed
	}
	o := &adopt.Options{Host: p, Files: find.Paths(p, findOptions(c, hf.projects)), Servers: hf.servers, ConfigPath: cfgPath,
		StateDir: stateDir, Secret: secret, Force: *hf.force, SignIn: adopt.ProbeSignIn(version),
		Machine: daemon.Machine(stateDir, findOptions(c, nil))}
	sv := &adopt.Supervision{Getenv: c.getenv, Socket: control.SocketPath(stateDir), Running: runningDaemon,
		NoAutostart: hf.noAutostart == nil || *hf.noAutostart, NoStart: hf.noStart == nil || *hf.noStart, StateDir: stateDir}
	if st != nil {
		o.Served = adopt.ServedBy(daemonStatus(stateDir))
	} else if !sv.NoStart {
		o.Served = sv.StartNow(cfgPath, daemonStatus(stateDir))
	}
	return o, sv, exitOK
}

// adoptStateDir is the state directory adopt and release use: the
// config's, or when the config named does not exist yet (adopt makes it),
// the flags' and the environment's.
func adoptStateDir(c cli, co common) (string, int) {
	if co.configPath != "" {
		if _, err := os.Stat(co.configPath); errors.Is(err, fs.ErrNotExist) {
			dir, err := config.ResolveStateDir(co.stateDir, c.getenv("WATCHDOG_STATE_DIR"), "")
			if err != nil {
				fmt.Fprintf(c.stderr, "watchdog: state directory: %v\n", err)
				return "", exitUsage
			}
			return dir, exitOK
		}
	}
	_, dir, code := loadConfig(c, co)
	return dir, code
}

// adoptDone prints what adopt or release did and what the user must do next.
func adoptDone(c cli, o adopt.Options, sv *adopt.Supervision, res adopt.Result, err error, verb string) int {
	res.WriteText(c.stdout, o.Host)
	for _, l := range sv.Said {
		fmt.Fprintf(c.stdout, "supervisor: %s\n", textsafe.Escape(l))
	}
	if sv.Started != nil {
		fmt.Fprintf(c.stdout, "started %s\n", textsafe.Escape(sv.Started.String()))
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog hosts %s: %s\n", verb, textsafe.Escape(err.Error()))
		if adopt.Refused(err) {
			return exitUsage
		}
		return exitFailed
	}
	if !res.Changed && sv.Started == nil {
		return exitOK
	}
	if verb != "adopt" {
		return exitOK
	}
	if st, err := daemonStatus(o.StateDir)(context.Background()); err == nil && adopt.Unserved(st, res.Listens) == "" {
		fmt.Fprintln(c.stdout, "the running watchdog serves the proxies (`watchdog status` shows them)")
	} else {
		fmt.Fprintf(c.stdout, "no watchdog serves them now: %s's adopted servers fail until one does (`watchdog run`, and `watchdog autostart enable` to keep it running)\n",
			textsafe.Escape(o.Host.Name))
	}
	return exitOK
}
