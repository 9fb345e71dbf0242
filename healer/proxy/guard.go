package proxy

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// foreign says why r may not come from a program on this machine, or "".
// A web page can make the browser send requests to loopback: a Host that
// is not a loopback name (DNS rebinding) or a foreign Origin gives it away.
func foreign(r *http.Request) string {
	if !loopbackHostPort(r.Host) {
		return "the Host header names another machine"
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || !loopbackHostPort(u.Host) {
			return "the request came from a web page of another origin"
		}
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
