package doctor

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/mcpwatchdog/watchdog/monitor/hosts"
	"github.com/mcpwatchdog/watchdog/monitor/probe"
)

// Offline, as HostFacts' clientVersion, skips the probes (stateless
// servers then show as exposed).
const Offline = "\x00offline"

// probeBudget bounds how long `watchdog hosts` waits for its probes (they
// run at once, one per server URL) to tell stateless servers apart.
const probeBudget = 3 * time.Second

// checkFoundHosts lists the hosts found on this machine: each exposed server a
// problem with the command that protects it, the rest one line per host.
func checkFoundHosts(ctx context.Context, rep *Report, o Options) {
	found := hosts.Discover(ctx, o.Find)
	fs := HostFacts(ctx, o.Config, found, o.ClientVersion)
	fs.Served(o.DaemonAnswers(ctx) == nil)
	for _, f := range found {
		check := "host " + f.Profile.Name
		var kept []string
		for _, file := range f.Files {
			if file.Err != nil {
				rep.Add(Finding{Check: check, Detail: file.Err.Error(), Fix: "fix the file, or leave it: its servers are not looked at"})
			}
			for _, s := range file.Servers {
				v := hosts.Protect(f.Profile, s, fs[f.Profile.Name])
				if v.Fix == "" {
					kept = append(kept, s.Name+" "+string(v.Protection))
					continue
				}
				fix := v.Fix
				if fix == "" {
					fix = "nothing the watchdog can do for it"
				}
				rep.Add(Finding{Check: check, Detail: fmt.Sprintf("%s (%s) is %s: %s", s.Name, Redact(s.URL), v.Protection, v.Why), Fix: fix})
			}
		}
		if len(kept) > 0 {
			rep.Add(Finding{Check: check, OK: true, Detail: strings.Join(kept, ", ")})
		}
	}
}

// Facts are what protects the servers, per host name.
type Facts map[string]hosts.Facts

// HostFacts works out what protects each found host's servers: the
// config's proxies, the client patch, and (unless clientVersion is
// "offline") which servers are stateless, probed at once within probeBudget.
func HostFacts(ctx context.Context, cfg config.Config, found []hosts.Found, clientVersion string) Facts {
	proxies := cfg.ProxyUpstreams()
	var stateless map[string]bool
	if clientVersion != Offline {
		stateless = probeStateless(ctx, found, proxies, clientVersion)
	}
	out := Facts{}
	home, _ := os.UserHomeDir()
	for _, f := range found {
		hf := hosts.Facts{Proxies: proxies, Stateless: stateless}
		if f.Profile.Patchable() {
			st := clientpatch.LookFor(clientpatch.FindOptions{Host: f.Profile, Home: home})
			hf.Patched = st.Module != "" && st.Status.State == clientpatch.StateApplied
		}
		out[f.Profile.Name] = hf
	}
	return out
}

// Served notes whether a watchdog answers to serve the proxies.
func (fs Facts) Served(daemonAnswers bool) {
	for name, f := range fs {
		f.Served = daemonAnswers
		fs[name] = f
	}
}

// probeStateless probes each distinct proxyable URL (not the watchdog's own
// proxies) at once, within probeBudget, and returns those that issue no
// session.
func probeStateless(ctx context.Context, found []hosts.Found, proxies map[string]string, clientVersion string) map[string]bool {
	ctx, cancel := context.WithTimeout(ctx, probeBudget)
	defer cancel()
	seen := map[string]bool{}
	var urls []string
	for _, f := range found {
		for _, file := range f.Files {
			for _, s := range file.Servers {
				if s.Proxyable() && proxies[hostOf(s.URL)] == "" && !seen[s.URL] {
					seen[s.URL] = true
					urls = append(urls, s.URL)
				}
			}
		}
	}
	stateless := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, u := range urls {
		wg.Go(func() {
			client, err := mcphttp.New(mcphttp.Options{URL: u, ClientName: "mcp-watchdog-probe", ClientVersion: clientVersion})
			if err != nil {
				return
			}
			rep, err := probe.Run(ctx, client)
			if err == nil && rep.Era != probe.EraUnknown && !rep.Stateful {
				mu.Lock()
				stateless[u] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return stateless
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
