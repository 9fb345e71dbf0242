package doctor

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/adopt"
	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/host/judge"
	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
	"github.com/mcpwatchdog/watchdog/monitor/probe"
)

// Offline, as HostFacts' clientVersion, skips the probes (stateless
// servers then show as exposed).
const Offline = "\x00offline"

// probeBudget bounds how long `watchdog hosts` waits for its probes (they
// run at once, one per server URL) to tell stateless servers apart.
const probeBudget = 3 * time.Second

// checkFoundHosts lists the hosts found on this machine: each server with
// a fix (exposed, or pointed at a proxy that does not answer) a problem
// with the command that mends it, the rest one line per host.
func checkFoundHosts(ctx context.Context, rep *Report, o Options) {
	found := find.Discover(ctx, o.Find)
	st, _ := o.DaemonStatus(ctx)
	fs := HostFacts(ctx, FactsInput{Config: o.Config, Found: found, ClientVersion: o.ClientVersion, Status: st, StateDir: o.StateDir})
	for _, f := range found {
		check := "host " + f.Profile.Name
		var kept []string
		for _, file := range f.Files {
			if file.Err != nil {
				rep.Add(Finding{Check: check, Detail: file.Err.Error(), Fix: "fix the file, or leave it: its servers are not looked at"})
			}
			for _, s := range file.Servers {
				v := judge.Protect(f.Profile, s, fs[f.Profile.Name])
				if v.Fix == "" && !v.Protection.Broken() {
					kept = append(kept, s.Name+" "+string(v.Protection))
					continue
				}
				rep.Add(Finding{Check: check, Detail: fmt.Sprintf("%s (%s) is %s: %s", s.Name, Redact(s.URL), v.Protection, v.Why),
					Fix: cmp.Or(v.Fix, "nothing the watchdog can do for it")})
			}
		}
		if len(kept) > 0 {
			rep.Add(Finding{Check: check, OK: true, Detail: strings.Join(kept, ", ")})
		}
	}
}

// Facts are what protects the servers, per host name.
type Facts map[string]judge.Facts

// FactsInput is what HostFacts weighs.
type FactsInput struct {
	Config config.Config
	Found  []find.Found
	// ClientVersion is the probes' clientInfo.version; Offline skips them
	// (stateless and OAuth servers then show as exposed).
	ClientVersion string
	// Status is the running daemon's status document; nil: none answers.
	Status *health.Status
	// StateDir holds adopt's record: the proxy URLs adopt wrote.
	StateDir string
}

// HostFacts works out what protects each found host's servers: the
// proxies and whether the running daemon serves them now, what adopt
// wrote, the client patch, and (unless offline) which servers are
// stateless or sign in with OAuth, probed at once within probeBudget.
func HostFacts(ctx context.Context, in FactsInput) Facts {
	proxies := proxiesOf(in.Config, in.Status)
	written, _ := adopt.Written(in.StateDir)
	wrappers := adopt.Wrappers(in.StateDir)
	var probed probeResults
	if in.ClientVersion != Offline {
		probed = probeServers(ctx, in.Found, proxies, in.ClientVersion)
	}
	out := Facts{}
	home, _ := os.UserHomeDir()
	npmRoot := clientpatch.NpmRoot() // one answer for every host of this run
	for _, f := range in.Found {
		hf := judge.Facts{Proxies: proxies, Daemon: in.Status != nil, Written: written, Stateless: probed.stateless,
			ModernOnly: probed.modernOnly, OAuth: probed.oauth, LostAnswer: lostAnswers(in.Status, probed.lostAnswer), Wrappers: wrappers}
		if f.Profile.Patchable() {
			st := clientpatch.LookFor(clientpatch.FindOptions{Host: f.Profile, Home: home, NpmRoot: npmRoot})
			hf.Patched = st.Module != "" && st.Status.State == clientpatch.StateApplied
		}
		out[f.Profile.Name] = hf
	}
	return out
}

// proxiesOf are the proxies by address: the running daemon's own word on
// each (served now or not, the URL it serves), else the config's, none
// served.
func proxiesOf(cfg config.Config, st *health.Status) map[string]judge.Proxy {
	out := map[string]judge.Proxy{}
	if st == nil {
		for _, s := range cfg.Servers {
			if s.ProxyListen != "" {
				out[s.ProxyListen] = judge.Proxy{Upstream: s.URL, Problem: "no watchdog runs"}
			}
		}
		return out
	}
	own := map[string]string{}
	for _, s := range cfg.Servers {
		own[s.Name] = s.URL
	}
	for _, s := range st.Servers {
		if s.ProxyListen == "" {
			continue
		}
		out[s.ProxyListen] = judge.Proxy{Upstream: cmp.Or(own[s.Name], s.URL), Served: s.ProxyServed, URL: s.ProxyURL, Problem: s.ProxyProblem}
	}
	return out
}

type probeResults struct {
	stateless, modernOnly, oauth map[string]bool
	// lostAnswer is how each server answered the probe's made-up session.
	lostAnswer map[string]host.Answer
}

// lostAnswers is how each server answers a lost session: what the running
// daemon learned (its liveness checks ask), else what the probes saw.
func lostAnswers(st *health.Status, probed map[string]host.Answer) map[string]host.Answer {
	out := map[string]host.Answer{}
	for u, a := range probed {
		out[u] = a
	}
	if st == nil {
		return out
	}
	for _, s := range st.Servers {
		if a := host.AnswerOfStatus(s.LostAnswer, s.LostAnswerBody); a != "" && s.URL != "" {
			out[s.URL] = a
		}
	}
	return out
}

// probeServers probes each distinct server URL the hosts name (and the
// server behind each proxy a host goes through) at once, within
// probeBudget: which issue no session, and which sign in with OAuth.
func probeServers(ctx context.Context, found []find.Found, proxies map[string]judge.Proxy, clientVersion string) probeResults {
	ctx, cancel := context.WithTimeout(ctx, probeBudget)
	defer cancel()
	seen := map[string]bool{}
	var urls []string
	add := func(u string) {
		if u != "" && !seen[u] {
			seen[u] = true
			urls = append(urls, u)
		}
	}
	for _, f := range found {
		for _, file := range f.Files {
			for _, s := range file.Servers {
				if !s.Proxyable() {
					continue
				}
				if p, ok := proxies[hostOf(s.URL)]; ok {
					add(p.Upstream)
				} else if _, isProxy := proxyurl.Parse(s.URL); !isProxy {
					add(s.URL)
				}
			}
		}
	}
	res := probeResults{stateless: map[string]bool{}, modernOnly: map[string]bool{}, oauth: map[string]bool{}, lostAnswer: map[string]host.Answer{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, u := range urls {
		wg.Go(func() {
			client, err := mcphttp.New(mcphttp.Options{URL: u, ClientName: "mcp-watchdog-probe", ClientVersion: clientVersion})
			if err != nil {
				return
			}
			rep, err := probe.Run(ctx, client)
			mu.Lock()
			defer mu.Unlock()
			if rep.LostAnswer != "" {
				res.lostAnswer[u] = rep.LostAnswer
			}
			switch {
			case rep.SignIn == probe.SignInOAuth:
				res.oauth[u] = true
			case rep.Era == probe.EraModernOnly:
				res.modernOnly[u] = true
			case err == nil && rep.Era != probe.EraUnknown && !rep.Stateful:
				res.stateless[u] = true
			}
		})
	}
	wg.Wait()
	return res
}

// Redact masks a URL's credentials, and the secret of a watchdog proxy's
// URL (a path segment shaped like one).
func Redact(u string) string {
	if u == "" {
		return ""
	}
	p, err := url.Parse(u)
	if err != nil {
		return mask.URL(u)
	}
	segs := strings.Split(p.Path, "/")
	for i, seg := range segs {
		if proxy.CheckSecret(seg) == nil {
			segs[i] = mask.Redacted
		}
	}
	p.Path, p.RawPath = strings.Join(segs, "/"), ""
	return mask.URL(p.String())
}

func hostOf(u string) string {
	p, err := mask.ParseURL(u)
	if err != nil {
		return ""
	}
	return p.Host
}
