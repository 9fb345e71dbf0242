package proxy_test

import (
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

// A server that signs in with MCP's OAuth (the TypeScript SDK's own
// authorization router, metadata and bearer check) cannot stand behind
// the proxy: the SDK's client, which signs in straight, refuses metadata
// whose resource is not the URL it was given ("Protected resource … does
// not match expected …"). The proxy passes the challenge on untouched, and
// tells once that the server signs in with OAuth: the daemon warns, and
// adopt leaves such servers alone.
func TestOAuthServerCannotBeProxied(t *testing.T) {
	t.Parallel()
	onTransports(t, oauthServerCannotBeProxied)
}

func oauthServerCannotBeProxied(t *testing.T, tr transport) {
	t.Parallel()
	srv := tsserver.StartOAuth(t)
	if got := tsserver.SignIn(t, srv.URL()); got != "OK signed-in" {
		t.Fatalf("signing in straight: %q", got)
	}
	px := tr.start(t, proxy.Options{Upstream: srv.URL()})
	got := tsserver.SignIn(t, px.url)
	if !strings.HasPrefix(got, "ERR ") || !strings.Contains(got, "does not match") {
		t.Fatalf("signing in through the proxy: %q; want the SDK's resource mismatch", got)
	}
	waitFor(t, "the proxy to tell the server signs in with OAuth", func() bool { return len(px.of(proxy.EvOAuth)) == 1 })
	if ev := px.of(proxy.EvOAuth)[0]; !strings.Contains(ev.Detail, "OAuth") || strings.Contains(ev.Detail, px.secret) {
		t.Errorf("the sighting says %q", ev.Detail)
	}
	tsserver.SignIn(t, px.url)
	if n := len(px.of(proxy.EvOAuth)); n != 1 {
		t.Errorf("told %d times; want once per run", n)
	}
	tr.served(t, px)
}
