package proxy

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// foreign says why r may not come from a program on this machine, or "".
// A web page can make the browser send requests to loopback: a Host that
// is not a loopback name (DNS rebinding) gives it away, and so does an
// Origin other than the proxy's own loopback address (the MCP spec's
// rule for local servers, which the conformance suite checks). No page
// has the proxy's own origin: it serves none, and a rebound name is not
// loopback. A page of another loopback origin (another local web app) is
// no more the host than any other page.
func foreign(r *http.Request) string {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return foreignFrom(r.Host, r.Header["Origin"], local)
}

// foreignFrom is foreign for a request's Host, its Origin values (nil when
// it sent none) and the address it came in on: the fast path's guard too.
func foreignFrom(host string, origin []string, local net.Addr) string {
	if !loopbackHostPort(host) {
		return "the Host header names another machine"
	}
	if origin != nil && (len(origin) != 1 || !ownOrigin(local, origin[0])) {
		return "the request came from a web page (its Origin is not the proxy's own address)"
	}
	return ""
}

// ownOrigin reports whether origin is http://<loopback name>:<the port
// the request came in on>, nothing more.
func ownOrigin(local net.Addr, origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return false
	}
	if local == nil {
		return false
	}
	_, port, err := net.SplitHostPort(local.String())
	return err == nil && u.Port() == port && proxyurl.IsLoopback(u.Hostname())
}

func loopbackHostPort(hp string) bool {
	host := strings.TrimSuffix(strings.TrimPrefix(hp, "["), "]")
	if h, _, err := net.SplitHostPort(hp); err == nil {
		host = h
	}
	return host != "" && proxyurl.IsLoopback(host)
}

// refused reports a connection of another user that Serve closed.
func (p *Proxy) refused(uid int) {
	p.opts.OnSighting(Sighting{Kind: EvRefused, Server: p.opts.Server, Time: p.opts.Now(), UID: uid,
		Detail: fmt.Sprintf("the proxy for %s refused a connection of uid %d: it serves only uid %d, the user the watchdog runs as",
			p.opts.Server, uid, os.Geteuid())})
}
