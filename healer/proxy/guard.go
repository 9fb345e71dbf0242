package proxy

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// foreign says why r may not come from a program on this machine, or "".
// A web page can make the browser send requests to loopback: a Host that
// is not a loopback name (DNS rebinding) gives it away, and so does any
// Origin at all. No MCP client a host runs sends one, and a page of a
// loopback origin is no more the host than any other page.
func foreign(r *http.Request) string {
	if !loopbackHostPort(r.Host) {
		return "the Host header names another machine"
	}
	if _, ok := r.Header["Origin"]; ok {
		return "the request came from a web page (it carries an Origin)"
	}
	return ""
}

func loopbackHostPort(hp string) bool {
	host := strings.TrimSuffix(strings.TrimPrefix(hp, "["), "]")
	if h, _, err := net.SplitHostPort(hp); err == nil {
		host = h
	}
	return host != "" && mcphttp.IsLoopback(host)
}

// refused reports a connection of another user that Serve closed.
func (p *Proxy) refused(uid int) {
	p.opts.OnSighting(Sighting{Kind: EvRefused, Server: p.opts.Server, Time: p.opts.Now(), UID: uid,
		Detail: fmt.Sprintf("the proxy for %s refused a connection of uid %d: it serves only uid %d, the user the watchdog runs as",
			p.opts.Server, uid, os.Geteuid())})
}
