package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/adopt"
	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/host/judge"
	"github.com/mcpwatchdog/watchdog/internal/notify"
	"github.com/mcpwatchdog/watchdog/internal/proxyproc"
)

// hostsEvery paces the look at the hosts' config files, for the tray's
// Protect items and the status document's hosts. A file unchanged since
// the last look is not read again.
const hostsEvery = time.Minute

// hostsSource looks for the hosts on this machine now and every
// hostsEvery, off the loop, and hands each look to it.
type hostsSource struct{ o find.Options }

func (s *hostsSource) Name() string { return "hosts" }

func (s *hostsSource) Run(ctx context.Context, emit emitFunc) error {
	o := s.o
	o.Read = newCachedRead()
	t := time.NewTicker(hostsEvery)
	defer t.Stop()
	for {
		found := find.Discover(ctx, o)
		if !emit(hostsIn{found}) {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// findOptions is where the hosts' files are: this user's home and
// environment (the daemon has no current project of its own).
func (d *daemon) findOptions() find.Options {
	return find.Options{Home: d.home(), GOOS: runtime.GOOS, Getenv: os.Getenv}
}

// servedProxies are the config's proxies, each as the daemon serves it now.
func (d *daemon) servedProxies() map[string]judge.Proxy {
	out := map[string]judge.Proxy{}
	for _, s := range d.cfg.Servers {
		if s.ProxyListen == "" {
			continue
		}
		p := judge.Proxy{Upstream: s.URL, Problem: d.proxies.Problem(s.Name)}
		if d.proxies.Served(s.Name) {
			p.Served, p.URL = true, proxyproc.URL(s, d.proxies.Secret())
		}
		out[s.ProxyListen] = p
	}
	return out
}

// home is where the hosts' files and the client's folders are; "" when
// it is not known.
func (d *daemon) home() string {
	h, _ := d.homeDir()
	return h
}

// homeDir is Options.Home, else the user's home directory.
func (d *daemon) homeDir() (string, error) {
	if d.opts.Home != "" {
		return d.opts.Home, nil
	}
	return os.UserHomeDir()
}

// noteHosts keeps what protects each found host's server (loop only).
func (d *daemon) noteHosts(found []find.Found) {
	written, _ := adopt.Written(d.stateDir)
	f := judge.Facts{Proxies: d.servedProxies(), Daemon: true, Written: written, Stateless: map[string]bool{}, ModernOnly: map[string]bool{},
		LostAnswer: map[string]host.Answer{},
		OAuth:      d.proxies.OAuthUpstreams(), Patched: d.client.look.Status.State == clientpatch.StateApplied, Wrappers: adopt.Wrappers(d.stateDir)}
	for _, s := range d.mainHost().model.Status(d.now()).Servers {
		if s.Mode == health.Stateless {
			f.Stateless[s.URL] = true
		}
		if s.Era == health.EraModernOnly {
			f.ModernOnly[s.URL] = true
		}
		if a := host.AnswerOfStatus(s.LostAnswer, s.LostAnswerBody); a != "" {
			f.LostAnswer[s.URL] = a
		}
	}
	d.face.found = nil
	for _, h := range found {
		sum := health.HostSummary{Name: h.Profile.Name, Servers: []health.HostServerSummary{}}
		for _, file := range h.Files {
			for _, s := range file.Servers {
				v := judge.Protect(h.Profile, s, f)
				sum.Servers = append(sum.Servers, health.HostServerSummary{Name: s.Name, Transport: string(s.Transport),
					Protection: string(v.Protection), Fix: v.Fix})
			}
		}
		d.face.found = append(d.face.found, sum)
	}
	d.refreshFace()
}

// protectFromTray adopts a host off the loop (the tray's Protect). The
// record it writes is told as host_adopted, which the notifier shows; a
// failure is a warning. The config it writes is taken like any change.
func (d *daemon) protectFromTray(ctx context.Context, name string) {
	p, ok := host.Lookup(name)
	if !ok {
		return
	}
	report := d.reports.reporter(ctx)
	goRun(&d.face.work, func() {
		res, err := d.adopt(ctx, p)
		switch {
		case err != nil:
			report(eventsIn{[]health.Event{{Kind: health.EvWarning, Extra: map[string]any{"host": p.Name, notify.ProtectKey: "failed"},
				Detail: fmt.Sprintf("protecting %s failed: %v", p.Name, err)}}})
		case !res.Changed:
			report(eventsIn{[]health.Event{{Kind: health.EvWarning, Extra: map[string]any{"host": p.Name, notify.ProtectKey: "unchanged"},
				Detail: fmt.Sprintf("protecting %s: nothing to change: %s", p.Name, strings.Join(res.Lines, "; "))}}})
		}
		// A change is told from the adoption record (tellAdoptions), as
		// one the command line made is.
	})
}

func (d *daemon) adopt(ctx context.Context, p host.Profile) (adopt.Result, error) {
	if d.opts.ConfigFile == "" {
		return adopt.Result{}, errors.New("the daemon runs with no config file to write")
	}
	secret, err := proxy.LoadSecret(d.stateDir)
	if err != nil {
		return adopt.Result{}, err
	}
	return adopt.Adopt(ctx, adopt.Options{Host: p, Files: find.Paths(p, d.findOptions()),
		ConfigPath: d.opts.ConfigFile, StateDir: d.stateDir, Secret: secret, SignIn: adopt.ProbeSignIn(d.opts.Version),
		Machine: func(ctx context.Context) (config.Config, error) {
			return MachineConfig(ctx, d.stateDir, d.findOptions())
		}})
}

// newCachedRead reads a host's config file again only when its size or
// modification time changed: ~/.claude.json grows to megabytes.
func newCachedRead() func(path string, l host.Layout) find.File {
	type entry struct {
		size  int64
		mtime time.Time
		file  find.File
	}
	cache := map[string]entry{}
	return func(path string, l host.Layout) find.File {
		fi, err := os.Stat(path)
		if err == nil {
			if e, ok := cache[path]; ok && e.size == fi.Size() && e.mtime.Equal(fi.ModTime()) {
				return e.file
			}
		}
		f := find.Read(path, l)
		if err == nil {
			cache[path] = entry{fi.Size(), fi.ModTime(), f}
		}
		return f
	}
}
