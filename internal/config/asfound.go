package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// Machine is what is on this machine: what a missing config file means
// (AsFound).
type Machine struct {
	// Found are the hosts the host finder found, by their files
	// (find.Discover, with no project folders of a command's own).
	Found []find.Found
	// Upstreams maps each proxy address adopt wrote into a host's file
	// to the server's own URL (adopt's record): a host pointed at a proxy
	// is watched as that server, through that proxy.
	Upstreams map[string]string
	// Home and GOOS say where Nowledge Mem would be installed; Getenv
	// expands the paths. Zero: this process's home, system and environment.
	Home, GOOS string
	Getenv     func(string) string
}

// Found says what a config built from the machine as found watches and
// why: the doctor's one line. Nil for a config file's.
type Found struct {
	Hosts []FoundHost
	// Nowledge: Nowledge Mem is installed, and watched.
	Nowledge bool
}

// FoundHost is one host watched because its files name servers: how many
// of them are watched, and how many through their proxies.
type FoundHost struct {
	Name             string
	Servers, Proxied int
}

// Summary is the one line that says what the watchdog watches and why.
func (f *Found) Summary() string {
	var parts []string
	for _, h := range f.Hosts {
		part := fmt.Sprintf("%s (%d server%s", h.Name, h.Servers, plural(h.Servers))
		if h.Proxied > 0 {
			part += fmt.Sprintf(", %d through the watchdog's proxy", h.Proxied)
		}
		parts = append(parts, part+")")
	}
	if f.Nowledge {
		parts = append(parts, "Nowledge Mem (installed)")
	}
	if len(parts) == 0 {
		return "no config file, and no MCP host with an HTTP server found on this machine: nothing to watch until one is (`watchdog hosts` says where it looks)"
	}
	return "no config file: watching what is on this machine: " + strings.Join(parts, ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// AsFound is the config a missing file means, the machine as found: every
// host whose files name an HTTP server the watchdog can watch, with those
// servers (one per URL), adopted ones as their own URL served through
// their proxies; and Nowledge Mem where it is installed. Servers it cannot
// watch are left out: stdio, disabled entries, those that sign in with a
// credential of their own (unless adopted: their calls pass the proxy),
// URLs Validate would refuse, proxy URLs no record explains.
func AsFound(m Machine) (Config, error) {
	env := machineEnv(m)
	home, _ := env.home()
	c := Config{Notify: true, Found: &Found{}}
	for _, f := range m.Found {
		fh := FoundHost{Name: f.Profile.Name}
		for _, s := range foundServers(f) {
			srv, ok := watchable(s, m.Upstreams)
			if !ok {
				continue
			}
			c.addFound(srv, f.Profile.Name)
			fh.Servers++
			if srv.ProxyListen != "" {
				fh.Proxied++
			}
		}
		if fh.Servers > 0 {
			c.Hosts = append(c.Hosts, hostDefaults(f.Profile))
			c.Found.Hosts = append(c.Found.Hosts, fh)
		}
	}
	if nowledgeInstalled(home, goosOr(m.GOOS)) {
		c.Found.Nowledge = true
		c.addNowledge(goosOr(m.GOOS))
	}
	if err := c.expandPaths(env); err != nil {
		return Config{}, err
	}
	return c, c.Validate()
}

// foundServers are the servers of the host's files it reads.
func foundServers(f find.Found) []hostfile.Server {
	var out []hostfile.Server
	for _, file := range f.Files {
		if file.Err == nil && file.Ignored == "" {
			out = append(out, file.Servers...)
		}
	}
	return out
}

// watchable is the [[server]] a host's entry stands for, if the watchdog
// can watch it.
func watchable(s hostfile.Server, upstreams map[string]string) (Server, bool) {
	out := Server{Name: s.Name, URL: s.URL, IdleTimeout: Duration{DefaultIdleTimeout}, KeepWarm: DefaultKeepWarm}
	switch px, isProxy := proxyurl.Parse(s.URL); {
	case s.Disabled:
		return Server{}, false
	case isProxy:
		listen, up, ok := upstreamOf(px.Listen, upstreams)
		if !ok {
			return Server{}, false // no record says whose: hosts and doctor say so
		}
		out.URL, out.ProxyListen = up, listen
	case !s.Proxyable() || s.OAuth || s.StaticAuth:
		return Server{}, false
	}
	p := &problems{}
	checkServer(p, 0, &out, map[string]int{})
	if out.Name == "" || p.err() != nil && !nameOnly(p) {
		return Server{}, false
	}
	return out, true
}

// nameOnly: the only problem is the name, which addFound replaces.
func nameOnly(p *problems) bool {
	for _, err := range p.errs {
		if e, ok := err.(*Error); !ok || e.Key != "server[0].name" {
			return false
		}
	}
	return true
}

// upstreamOf is the record's proxy address and server URL for a proxy
// URL's address (which may write localhost where the record has 127.0.0.1).
func upstreamOf(listen string, upstreams map[string]string) (string, string, bool) {
	for l, up := range upstreams {
		if up != "" && proxyurl.SameListen(l, listen) {
			if _, isProxy := proxyurl.Parse(up); !isProxy {
				return l, up, true
			}
		}
	}
	return "", "", false
}

// addFound adds s, found in hostName's files, unless a server of its URL
// is there already; a name another server has gets the host's in front.
func (c *Config) addFound(s Server, hostName string) {
	if slices.ContainsFunc(c.Servers, func(o Server) bool { return o.URL == s.URL }) {
		return
	}
	s.Name = c.freeName(NameSlug(s.Name), NameSlug(hostName)+"-"+NameSlug(s.Name))
	c.Servers = append(c.Servers, s)
}

// freeName is the first of the names no server has (case ignored), else
// the last numbered.
func (c *Config) freeName(names ...string) string {
	taken := func(n string) bool {
		return slices.ContainsFunc(c.Servers, func(o Server) bool { return strings.EqualFold(o.Name, n) })
	}
	for _, n := range names {
		if !taken(n) {
			return n
		}
	}
	last := names[len(names)-1]
	for i := 2; ; i++ {
		if n := last + "-" + strconv.Itoa(i); !taken(n) {
			return n
		}
	}
}

// NameSlug makes a name fit a [[server]] name (adopt's, lower-cased):
// letters, digits, '.', '_' and '-', at most 30.
func NameSlug(s string) string {
	out := strings.Map(func(r rune) rune {
		if r < 128 && serverName.MatchString(string(r)) {
			return r
		}
		return '-'
	}, s)
	out = strings.Trim(out, "-.")
	if len(out) > 30 {
		out = out[:30]
	}
	if out == "" {
		out = "server"
	}
	return out
}

// addNowledge watches Nowledge Mem: its logs on the server a host's file
// names at its URL, else its own server.
func (c *Config) addNowledge(goos string) {
	def := defaultFor(goos).Servers[0]
	for i := range c.Servers {
		if c.Servers[i].URL == def.URL {
			c.Servers[i].Logs = def.Logs
			return
		}
	}
	def.Name = c.freeName(def.Name, def.Name+"-app")
	c.Servers = append(c.Servers, def)
}

// nowledgeInstalled: a folder of the Nowledge Mem desktop app (its data or
// its logs, nowledgeLogs) is there.
func nowledgeInstalled(home, goos string) bool {
	if home == "" {
		return false
	}
	dirs := []string{"Library/Application Support/" + nowledgeID, "Library/Logs/" + nowledgeID, "Library/Logs/Nowledge Mem"}
	if goos != "darwin" {
		dirs = []string{".local/share/" + nowledgeID, ".config/" + nowledgeID}
	}
	for _, d := range dirs {
		if fi, err := os.Stat(filepath.Join(home, filepath.FromSlash(d))); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

func machineEnv(m Machine) environ {
	env := osEnv()
	if m.Getenv != nil {
		env.getenv = m.Getenv
	}
	if m.Home != "" {
		env.home = func() (string, error) { return m.Home, nil }
	}
	return env
}
