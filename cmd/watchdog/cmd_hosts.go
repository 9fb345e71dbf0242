package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/mcpwatchdog/watchdog/healer/adopt"
	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/doctor"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
	"github.com/mcpwatchdog/watchdog/monitor/hosts"
	"github.com/mcpwatchdog/watchdog/monitor/proc"
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
	offline := fs.Bool("offline", false, "do not probe the servers (stateless ones then show as exposed)")
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
	found := hosts.Discover(ctx, findOptions(c))
	client := version
	if *offline {
		client = doctor.Offline
	}
	known := doctor.HostFacts(ctx, cfg, found, client)
	known.Served(daemonAnswers(stateDir)(ctx) == nil)
	rep := hostsReport(found, known)
	if co.json {
		_ = writeJSON(c.stdout, rep)
	} else {
		rep.writeText(c.stdout)
	}
	return exitOK
}

// findOptions: this machine's home, system, environment and processes.
func findOptions(c cli) hosts.Options {
	home := c.getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return hosts.Options{Home: home, GOOS: runtime.GOOS, Getenv: c.getenv, Running: hostRunning}
}

func hostRunning(ctx context.Context, p host.Profile) (int32, bool) {
	if p.Process == "" {
		return 0, false
	}
	h, ok, err := proc.Find(ctx, proc.Target{Name: p.Process})
	return h.PID, ok && err == nil
}

// hostsDoc is `watchdog hosts --json`.
type hostsDoc struct {
	Hosts []hostDoc `json:"hosts"`
}

type hostDoc struct {
	Name    string          `json:"name"`
	Running bool            `json:"running"`
	PID     int32           `json:"pid,omitempty"`
	OnLoss  host.Behaviour  `json:"on_loss"`
	Files   []hostFileDoc   `json:"files"`
	Servers []hostServerDoc `json:"servers"`
}

type hostFileDoc struct {
	Path  string `json:"path"`
	Error string `json:"error,omitempty"`
}

type hostServerDoc struct {
	Name       string           `json:"name"`
	File       string           `json:"file"`
	Transport  host.Transport   `json:"transport"`
	URL        string           `json:"url,omitempty"` // redacted
	Protection hosts.Protection `json:"protection"`
	Upstream   string           `json:"upstream,omitempty"` // redacted
	Why        string           `json:"why"`
	Fix        string           `json:"fix,omitempty"`
}

func hostsReport(found []hosts.Found, fs doctor.Facts) hostsDoc {
	doc := hostsDoc{Hosts: []hostDoc{}}
	for _, f := range found {
		h := hostDoc{Name: f.Profile.Name, Running: f.Running, PID: f.PID, OnLoss: f.Profile.OnLoss,
			Files: []hostFileDoc{}, Servers: []hostServerDoc{}}
		for _, file := range f.Files {
			fd := hostFileDoc{Path: file.Path}
			if file.Err != nil {
				fd.Error = file.Err.Error()
			}
			h.Files = append(h.Files, fd)
			for _, s := range file.Servers {
				v := hosts.Protect(f.Profile, s, fs[f.Profile.Name])
				h.Servers = append(h.Servers, hostServerDoc{Name: s.Name, File: file.Path, Transport: s.Transport,
					URL: doctor.Redact(s.URL), Protection: v.Protection, Upstream: doctor.Redact(v.Upstream), Why: v.Why, Fix: v.Fix})
			}
		}
		doc.Hosts = append(doc.Hosts, h)
	}
	return doc
}

func (d hostsDoc) writeText(w io.Writer) {
	esc := textsafe.Escape
	if len(d.Hosts) == 0 {
		fmt.Fprintln(w, "no MCP host found on this machine (looked for: "+esc(fmt.Sprint(host.Names()))+")")
		return
	}
	for _, h := range d.Hosts {
		state := "not running"
		if h.Running {
			state = fmt.Sprintf("running, pid %d", h.PID)
		}
		fmt.Fprintf(w, "%s (%s; on a lost session: %s)\n", esc(h.Name), state, h.OnLoss)
		for _, f := range h.Files {
			if f.Error != "" {
				fmt.Fprintf(w, "  %s: %s\n", esc(f.Path), esc(f.Error))
			}
		}
		for _, s := range h.Servers {
			fmt.Fprintf(w, "  %-16s %-15s %-13s %s\n", esc(s.Name), s.Transport, s.Protection, esc(s.URL))
			why := s.Why
			if s.Upstream != "" {
				why += ", for " + s.Upstream
			}
			fmt.Fprintf(w, "  %16s %s\n", "", esc(why))
			if s.Fix != "" {
				fmt.Fprintf(w, "  %16s protect it: %s\n", "", esc(s.Fix))
			}
		}
	}
}

// multiFlag is a flag that may be given more than once.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// cmdHostsAdopt routes a host's Streamable HTTP servers through the proxy.
func cmdHostsAdopt(ctx context.Context, c cli, args []string) int {
	var co common
	fs := newFlagSet("hosts adopt", c, &co)
	var servers multiFlag
	fs.Var(&servers, "server", "adopt only this server of the host (repeatable)")
	o, code := adoptOptions(ctx, c, fs, &co, args)
	if code != exitOK {
		return code
	}
	o.Servers = servers
	res, err := adopt.Adopt(ctx, o)
	return adoptDone(ctx, c, co, o, res, err, "adopt")
}

// cmdHostsRelease puts a host's original URLs back.
func cmdHostsRelease(ctx context.Context, c cli, args []string) int {
	var co common
	fs := newFlagSet("hosts release", c, &co)
	force := fs.Bool("force", false, "put the original URLs back even over values changed since adopt")
	o, code := adoptOptions(ctx, c, fs, &co, args)
	if code != exitOK {
		return code
	}
	o.Force = *force
	res, err := adopt.Release(ctx, o)
	return adoptDone(ctx, c, co, o, res, err, "release")
}

// adoptOptions parses HOST and the flags, and finds the host's files, the
// watchdog's config and state directory, and the proxy's secret.
func adoptOptions(ctx context.Context, c cli, fs *flag.FlagSet, co *common, args []string) (adopt.Options, int) {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return adopt.Options{}, usageErr(err)
	}
	if len(pos) != 1 {
		fmt.Fprintf(c.stderr, "%s: name one host, e.g. %q (known: %s)\n", fs.Name(), host.Default().Name, strings.Join(host.Names(), ", "))
		return adopt.Options{}, exitUsage
	}
	p, ok := host.Lookup(pos[0])
	if !ok {
		fmt.Fprintf(c.stderr, "%s: %q is not a host the watchdog knows; known: %s\n", fs.Name(), pos[0], strings.Join(host.Names(), ", "))
		return adopt.Options{}, exitUsage
	}
	_, stateDir, code := loadConfig(c, *co)
	if code != exitOK {
		return adopt.Options{}, code
	}
	cfgPath := co.configPath
	if cfgPath == "" {
		if cfgPath, err = config.DefaultPath(); err != nil {
			fmt.Fprintf(c.stderr, "%s: %v\n", fs.Name(), err)
			return adopt.Options{}, exitFailed
		}
	}
	secret, err := proxy.LoadSecret(stateDir)
	if err != nil {
		fmt.Fprintf(c.stderr, "%s: %v\n", fs.Name(), err)
		return adopt.Options{}, exitFailed
	}
	fo := findOptions(c)
	return adopt.Options{Host: p, Files: hosts.Paths(p, fo.Home, fo.GOOS, fo.Getenv), ConfigPath: cfgPath,
		StateDir: stateDir, Secret: secret}, exitOK
}

// adoptDone prints what adopt or release did and what the user must do next.
func adoptDone(ctx context.Context, c cli, co common, o adopt.Options, res adopt.Result, err error, verb string) int {
	esc := textsafe.Escape
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog hosts %s: %s\n", verb, esc(err.Error()))
		if errors.Is(err, adopt.ErrNoServer) || errors.Is(err, adopt.ErrNotAdopted) || errors.Is(err, adopt.ErrOAuth) {
			return exitUsage
		}
		return exitFailed
	}
	for _, l := range res.Lines {
		fmt.Fprintf(c.stdout, "%s: %s\n", esc(o.Host.Name), esc(l))
	}
	if !res.Changed {
		return exitOK
	}
	if res.RestartHost {
		fmt.Fprintf(c.stdout, "restart %s so that it reads its changed config\n", esc(o.Host.Name))
	}
	if _, err := control.Dial(daemon.SocketPath(o.StateDir)).Status(ctx); err == nil {
		fmt.Fprintln(c.stdout, "the running watchdog takes its changed config by itself (`watchdog status` shows the proxies)")
	}
	return exitOK
}
