package daemon

import (
	"context"
	"fmt"
	"reflect"

	"github.com/mcpwatchdog/watchdog/healer/adopt"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/monitor/proc"
)

// MachineConfig is what a missing config file means: the machine as found
// (config.AsFound) in the hosts' own files (no project folder of the
// caller's, no process looked for: the daemon's own look every hostsEvery
// sees the same), adopted servers through the proxies adopt's record in
// stateDir names.
func MachineConfig(ctx context.Context, stateDir string, o find.Options) (config.Config, error) {
	o.Projects, o.Running = nil, nil
	return machineConfig(stateDir, find.Discover(ctx, o), o)
}

func machineConfig(stateDir string, found []find.Found, o find.Options) (config.Config, error) {
	written, _ := adopt.Written(stateDir) // a record that does not load: no server is taken for adopted
	return config.AsFound(config.Machine{Found: found, Upstreams: written, Home: o.Home, GOOS: o.GOOS, Getenv: o.Getenv})
}

// followMachine takes a new look at the hosts (loop only): with no config
// file, a machine that changed (a server added to a host's file, a host
// adopted) is a changed config, taken as a changed file is.
func (d *daemon) followMachine(found []find.Found) {
	if d.cfg.Found == nil || d.run.next != nil {
		return
	}
	next, err := machineConfig(d.stateDir, found, d.findOptions())
	if err != nil {
		d.log.Warn("the machine as found does not make a config; the running one stays", "err", err)
		return
	}
	if reflect.DeepEqual(next.Hosts, d.cfg.Hosts) && reflect.DeepEqual(next.Servers, d.cfg.Servers) {
		return
	}
	d.log.Info("the machine changed: watching it as found now", "watching", next.Found.Summary())
	d.takeReload(reload{cfg: next})
}

// Machine is MachineConfig for stateDir and o, in the shape
// adopt.Options.Machine takes.
func Machine(stateDir string, o find.Options) func(context.Context) (config.Config, error) {
	return func(ctx context.Context) (config.Config, error) { return MachineConfig(ctx, stateDir, o) }
}

// OrMachine is cfg, or, when no config file was found (cfg.Path is ""),
// the machine as found: what the daemon watches then.
func OrMachine(ctx context.Context, cfg config.Config, stateDir string, o find.Options) (config.Config, error) {
	if cfg.Path != "" {
		return cfg, nil
	}
	found, err := MachineConfig(ctx, stateDir, o)
	if err != nil {
		return cfg, fmt.Errorf("the machine as found: %w", err)
	}
	return found, nil
}

// HostRunning is the pid of a running process of host p (false: none, or
// p names no process), as find.Options.Running takes it.
func HostRunning(ctx context.Context, p host.Profile) (int32, bool) {
	if p.Process == "" {
		return 0, false
	}
	h, ok, err := proc.Find(ctx, proc.Target{Name: p.Process, Helpers: p.Helpers})
	return h.PID, ok && err == nil
}
