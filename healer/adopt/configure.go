package adopt

import (
	"context"
	"fmt"
	"hash/fnv"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// newConfigHead opens the config adopt writes where there was none.
const newConfigHead = `# The watchdog's config, started by ` + "`watchdog hosts adopt`" + ` where there was none.
# With no file the watchdog watched the machine as found (the hosts' HTTP
# servers, as ` + "`watchdog hosts`" + ` finds them); this file holds what it found
# then, so that it still watches it. A file is read as it is: a host or
# server added to the machine later is watched once it is added here.
# Every key: docs/USAGE.md, "Config", in the watchdog's sources.
`

// newConfigText starts a watchdog config where there was none: what no
// file meant, the machine as found (Options.Machine), written out, so
// that the file keeps watching it. With no host found, the adopted host's
// table: a file with none would mean the default host.
func newConfigText(ctx context.Context, o *Options) (string, error) {
	var c config.Config
	if o.Machine != nil {
		var err error
		if c, err = o.Machine(ctx); err != nil {
			return "", fmt.Errorf("what the watchdog watches with no config (the machine as found): %w; nothing was changed", err)
		}
	}
	if len(c.Hosts) == 0 {
		c.Hosts = []config.Host{config.HostOf(o.Host)}
	}
	return config.Text(c, newConfigHead), nil
}

// configure gives each pick to adopt or repair a proxy in the watchdog's
// config: the one a [[server]] of its URL has, or one added to that
// table, or a new [[server]]. The config must load afterwards.
func configure(o *Options, cfgData []byte, picks []pick) ([]byte, error) {
	for i := range picks {
		p := &picks[i]
		if p.verdict != adoptIt && p.verdict != repair {
			continue
		}
		if isProxyURL(p.upstream) {
			// Never: a proxy in front of a proxy, its secret in the config.
			return nil, fmt.Errorf("%s: refusing a watchdog proxy's URL as a server's own; nothing was changed", p.server.Name)
		}
		tables, err := config.ServerTables(cfgData)
		if err != nil {
			return nil, err
		}
		j := slices.IndexFunc(tables, func(t config.ServerTable) bool { return t.URL == p.upstream && t.ProxyListen != "" })
		if j < 0 {
			j = slices.IndexFunc(tables, func(t config.ServerTable) bool { return t.URL == p.upstream })
		}
		switch {
		case j >= 0 && tables[j].ProxyListen != "":
			p.wd, p.listen = tables[j].Name, tables[j].ProxyListen
		case j >= 0:
			p.wd, p.listen = tables[j].Name, listenFor(o, p.prefer, tables[j].Name, tables)
			cfgData, p.added = config.AddProxyListen(cfgData, tables[j], p.listen)
		default:
			name := p.wd
			if name == "" || slices.ContainsFunc(tables, func(t config.ServerTable) bool { return strings.EqualFold(t.Name, name) }) {
				name = uniqueName(slug(o.Host.Name)+"-"+slug(p.server.Name), tables)
			}
			p.wd, p.listen = name, listenFor(o, p.prefer, name, tables)
			cfgData, p.added = config.AddServer(cfgData, p.wd, p.upstream, p.listen, o.Host.Name+": "+p.server.Name)
		}
	}
	if err := loads(o.ConfigPath, cfgData); err != nil {
		return nil, fmt.Errorf("the watchdog's config would not load with the new proxies, so nothing was changed: %w", err)
	}
	return cfgData, nil
}

// listenFor is the proxy's address for watchdog server name: prefer (the
// address a repaired URL had) when no other table uses it and it is free,
// else a port from the name, moved up past those the config uses or that
// are taken.
func listenFor(o *Options, prefer, name string, tables []config.ServerTable) string {
	used := func(addr string) bool {
		return slices.ContainsFunc(tables, func(t config.ServerTable) bool {
			return t.ProxyListen != "" && proxyurl.SameListen(t.ProxyListen, addr)
		})
	}
	if prefer != "" && !used(prefer) && o.Free(prefer) {
		return prefer
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	start := int(h.Sum32() % 500)
	for k := range 1000 {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(BasePort+(start+k)%1000))
		if !used(addr) && o.Free(addr) {
			return addr
		}
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(BasePort+start))
}

func uniqueName(base string, tables []config.ServerTable) string {
	name := base
	for n := 2; slices.ContainsFunc(tables, func(t config.ServerTable) bool { return strings.EqualFold(t.Name, name) }); n++ {
		name = base + "-" + strconv.Itoa(n)
	}
	return name
}

// slug makes a name fit for a watchdog server name: config.NameSlug of
// it in lower case.
func slug(s string) string {
	return config.NameSlug(strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s))
}

func shellWord(s string) string { return host.ShellWord(s) }

// redacted is a URL as a message may show it.
func redacted(u string) string { return mask.URL(u) }
