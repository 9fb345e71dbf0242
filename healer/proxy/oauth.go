package proxy

import (
	"net/http"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// sawUnauthorized tells, once per run, that the server signs in with
// OAuth: its challenge names RFC 9728 metadata whose resource is the
// server's own URL, and the tokens a host gets for it are bound to that
// URL. A host signing in through the proxy compares the metadata's
// resource with the proxy's URL and gives up, or gets a token the server
// refuses: the server must be released from the proxy. The challenge is
// passed to the host as it came; nothing is rewritten.
func (p *Proxy) sawUnauthorized(h http.Header) {
	if _, ok := mcphttp.OAuthChallenge(h); !ok || !p.oauthSeen.CompareAndSwap(false, true) {
		return
	}
	p.opts.OnSighting(Sighting{Kind: EvOAuth, Server: p.opts.Server, Time: p.opts.Now(),
		Detail: p.opts.Server + " signs in with OAuth: its tokens are bound to its own URL, so hosts cannot sign in through the proxy"})
}
