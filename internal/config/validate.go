package config

import (
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// Validate checks every rule and reports all problems at once, each naming
// the file, line and key when known. It accepts paths that are absolute or
// still unexpanded (~/…, ${NAME}…), so Default() validates too.
func (c *Config) Validate() error {
	p := &problems{file: c.Path, index: c.index}
	checkPath(p, "state_dir", c.StateDir)
	checkMetrics(p, c.MetricsListen)
	checkHosts(p, c)
	seen := map[string]int{}
	for i := range c.Servers {
		checkServer(p, i, &c.Servers[i], seen)
	}
	checkListenersApart(p, c)
	return p.err()
}

// checkHosts checks each host table, and that no two name the same host
// or client: a session is told to be a host's by its client's name.
func checkHosts(p *problems, c *Config) {
	if len(c.Hosts) == 0 && c.Found == nil {
		p.add("host", "no host table; add a [host] table (or [[host]] tables), e.g. name = %q", host.Default().Name)
	}
	names, clients := map[string]int{}, map[string]int{}
	for i := range c.Hosts {
		h, key := &c.Hosts[i], c.HostKey(i)
		checkHost(p, key, h)
		if j, dup := names[host.Fold(h.DisplayName())]; dup {
			p.add(key+".name", "%q is already the name of %s; give each host its own name", h.DisplayName(), c.HostKey(j))
		} else {
			names[host.Fold(h.DisplayName())] = i
		}
		if j, dup := clients[h.ClientName]; dup && h.ClientName != "" {
			p.add(key+".client_name", "%q is already the client of %s: the watchdog tells a session's host by its client's name; "+
				"keep one of the two tables, or give each the client_name its host sends", h.ClientName, c.HostKey(j))
		} else {
			clients[h.ClientName] = i
		}
	}
}

func checkHost(p *problems, key string, h *Host) {
	if _, known := host.Lookup(h.Name); !known && h.ClientName == "" {
		p.add(key+".name", "%q is not a host the watchdog knows (%s); name one of them, or give client_name (the clientInfo.name its MCP client sends) for a host of your own",
			h.Name, strings.Join(host.Names(), ", "))
	}
	checkGlobs(p, key+".logs", h.Logs)
	checkPath(p, key+".client_module", h.ClientModule)
	if h.Port < 0 || h.Port > 65535 {
		p.add(key+".port", "%d is not a port; use 0 (none) to 65535", h.Port)
	}
	for i, a := range h.Restart {
		if a == "" {
			p.add(key+".restart["+strconv.Itoa(i)+"]", "empty argument; remove it or fill it in")
		}
	}
	if h.Profile().OneShot && (len(h.Restart) > 0 || h.AutoRestart) {
		p.add(key+".restart", "%s runs one process per prompt (a new process is a new run): there is nothing to restart; remove restart and auto_restart",
			h.DisplayName())
	}
	if h.AutoRestart && len(h.Restart) == 0 {
		p.add(key+".auto_restart", "true, but %s.restart is empty; set restart to the command that starts the host, or set auto_restart = false", key)
	}
}

var serverName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

func checkServer(p *problems, i int, s *Server, seen map[string]int) {
	key := "server[" + strconv.Itoa(i) + "]"
	switch {
	case s.Name == "":
		p.add(key+".name", `missing; give every [[server]] a name, e.g. name = "nowledge-mem"`)
	case len(s.Name) > 64 || !serverName.MatchString(s.Name) || strings.Trim(s.Name, ".") == "":
		p.add(key+".name", "%q is not a usable name (it names files): use 1 to 64 letters, digits, '.', '_' or '-', not only dots", s.Name)
	default:
		folded := strings.ToLower(s.Name) // file names may ignore case
		if j, dup := seen[folded]; dup {
			p.add(key+".name", "%q is already the name of server[%d] (case is ignored); give each server its own name", s.Name, j)
		} else {
			seen[folded] = i
		}
	}
	checkURL(p, key+".url", s)
	checkGlobs(p, key+".logs", s.Logs)
	checkPath(p, key+".store", s.Store)
	if s.IdleTimeout.Duration <= 0 {
		p.add(key+".idle_timeout", `%s is not a timeout; use a positive duration, e.g. "12h"`, s.IdleTimeout.Duration)
	}
	checkHeaders(p, key+".headers", s.Headers)
	checkListen(p, key+".proxy_listen", s.ProxyListen, "14243", "the proxy hands out the host's sessions")
}

func checkURL(p *problems, key string, s *Server) {
	const fix = "use http://host:port/path"
	if s.URL == "" {
		p.add(key, "missing; "+fix)
		return
	}
	// Never echo the URL whole: it may hold a credential (user info, a
	// query token); mask.URL shows it redacted.
	u, err := mask.ParseURL(s.URL)
	if err != nil {
		p.add(key, "does not parse: %v; %s", err, fix)
		return
	}
	if u.User != nil {
		p.add(key, `credentials in the URL would end up in logs; remove them and use headers = { Authorization = "Bearer ${TOKEN}" }`)
		return
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		p.add(key, `"%s" is not an http(s) URL; %s`, mask.URL(s.URL), fix)
		return
	}
	if px, ok := proxyurl.Parse(s.URL); ok {
		// Never a proxy in front of a proxy, and never the secret in here.
		p.add(key, "is a watchdog proxy's URL (on %s), not a server's own: give the server's own URL; `watchdog hosts adopt` mends hosts pointed at a proxy", px.Listen)
		return
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			p.add(key, `"%s" has no valid port; %s`, mask.URL(s.URL), fix)
			return
		}
	}
	if u.Scheme == "http" && !proxyurl.IsLoopback(u.Hostname()) && !s.AllowInsecure {
		p.add(key, "plain http to %s would send session ids and headers unencrypted; use https, or set allow_insecure = true", u.Hostname())
	}
}

func checkMetrics(p *problems, addr string) {
	checkListen(p, "metrics_listen", addr, "9464", "metrics are not meant for the network")
}

// checkListen checks a loopback host:port to listen on ("" for none).
func checkListen(p *problems, key, addr, examplePort, why string) {
	if addr == "" {
		return
	}
	fix := `use a loopback address, e.g. "127.0.0.1:` + examplePort + `", or "" for none`
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		p.add(key, "%q is not host:port; %s", addr, fix)
		return
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		p.add(key, "%q has no valid port; %s", addr, fix)
		return
	}
	if !proxyurl.IsLoopback(host) {
		p.add(key, "%q is not a loopback address (%s); %s", addr, why, fix)
	}
}

// checkListenersApart: two things cannot listen on one address. Values are
// compared as the socket addresses they bind (bindsOf), not as strings:
// "localhost:9464" and "127.0.0.1:09464" are one address.
func checkListenersApart(p *problems, c *Config) {
	var taken []listener
	if c.MetricsListen != "" {
		taken = append(taken, listener{key: "metrics_listen", value: c.MetricsListen, binds: bindsOf(c.MetricsListen, false)})
	}
	for i, s := range c.Servers {
		if s.ProxyListen == "" {
			continue
		}
		l := listener{key: "server[" + strconv.Itoa(i) + "].proxy_listen", value: s.ProxyListen, binds: bindsOf(s.ProxyListen, true)}
		if clash := firstClash(p, taken, l); clash != "" {
			p.add(l.key, "%s", clash)
			continue
		}
		taken = append(taken, l)
	}
}

// firstClash says how l clashes with the first of taken it shares an
// address with, naming that key and its line; "" when it clashes with none.
func firstClash(p *problems, taken []listener, l listener) string {
	for _, t := range taken {
		at, ok := sharedBind(t, l)
		if !ok {
			continue
		}
		where := ""
		if line := p.index.line(t.key); line > 0 {
			where = ", line " + strconv.Itoa(line)
		}
		both := "both would listen on " + at.String()
		if t.value == l.value {
			both = "the same address"
		}
		return fmt.Sprintf("%q is already taken by %s (%q%s): %s; give each listener a port of its own", l.value, t.key, t.value, where, both)
	}
	return ""
}

// pathOK accepts an absolute path, or one that expansion will make
// absolute.
func pathOK(v string) bool {
	return filepath.IsAbs(v) || v == "~" || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "${")
}

func checkPath(p *problems, key, v string) {
	if v != "" && !pathOK(v) {
		p.add(key, "%q is relative; write an absolute path or start it with ~/", v)
	}
}

func checkGlobs(p *problems, key string, globs []string) {
	for i, g := range globs {
		k := key + "[" + strconv.Itoa(i) + "]"
		switch {
		case g == "":
			p.add(k, "empty; remove it or write a glob such as \"~/logs/*.log\"")
		case !pathOK(g):
			p.add(k, "%q is relative; write an absolute path or start it with ~/", g)
		default:
			if _, err := filepath.Match(g, ""); err != nil {
				p.add(k, "%q is not a valid glob (%v); check its [ ] and \\", g, err)
			}
		}
	}
}

// reservedHeaders are set by the watchdog's MCP client itself; a config
// value would break the protocol or the session being watched.
var reservedHeaders = map[string]bool{
	"mcp-session-id": true, "mcp-protocol-version": true, "mcp-method": true,
	"content-type": true, "content-length": true, "accept": true, "host": true,
	"transfer-encoding": true, "connection": true,
}

func checkHeaders(p *problems, key string, headers map[string]string) {
	seen := map[string]string{}
	for _, name := range sortedKeys(headers) {
		k := key + "." + quoteKey(name)
		lower := strings.ToLower(name)
		switch {
		case !isToken(name):
			p.add(k, "%q is not a header name; use letters, digits and !#$%%&'*+-.^_`|~", name)
		case reservedHeaders[lower]:
			p.add(k, "set by the watchdog itself; remove it")
		case seen[lower] != "":
			p.add(k, "repeats %q (header names ignore case); keep one", seen[lower])
		default:
			seen[lower] = name
		}
		// Values may be secrets: check them without printing them.
		if hasControl(headers[name]) {
			p.add(k, "the value contains a control character (a line break?); a header value is one line")
		} else if _, err := expandVars(headers[name], func(string) string { return "x" }); err != nil {
			p.addErr(k, err)
		}
	}
}

// isToken reports an RFC 9110 token (the characters of a header name).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
