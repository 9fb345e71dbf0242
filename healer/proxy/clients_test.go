package proxy_test

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/testbed/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

// idleTimeout is the servers' idle timeout in these tests.
const idleTimeout = 500 * time.Millisecond

// upstream is a real server the proxy fronts: it can lose the sessions it
// holds (an idle expiry, or a kill and a start at the same address) and
// says how often its tool ran in the process serving now.
type upstream struct {
	url     string
	restart func(t *testing.T)
	count   func(t *testing.T) int
}

var upstreams = []struct {
	name  string
	start func(t *testing.T) *upstream
}{
	{"go-sdk", goUpstream},
	{"ts-sdk 404", func(t *testing.T) *upstream { return tsUpstream(t, tsserver.Stateful) }},
	{"ts-sdk 400 quirk", func(t *testing.T) *upstream { return tsUpstream(t, tsserver.Quirk) }},
}

func goUpstream(t *testing.T) *upstream {
	srv := startServer(t, demoserver.Options{IdleTimeout: idleTimeout})
	u := &upstream{url: srv.URL(), count: func(*testing.T) int { return int(srv.Count()) }}
	addr := strings.TrimSuffix(strings.TrimPrefix(srv.URL(), "http://"), "/mcp")
	u.restart = func(t *testing.T) {
		_ = srv.Close()
		srv = startServer(t, demoserver.Options{Addr: addr, IdleTimeout: idleTimeout})
	}
	return u
}

func tsUpstream(t *testing.T, mode tsserver.Mode) *upstream {
	srv := tsserver.Start(t, tsserver.Options{Mode: mode, IdleTimeout: idleTimeout})
	u := &upstream{url: srv.URL(), count: func(t *testing.T) int { return srv.Count(t) }}
	_, portText, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(srv.URL(), "http://"), "/mcp"))
	port, _ := strconv.Atoi(portText)
	u.restart = func(t *testing.T) {
		srv.Kill()
		srv = tsserver.Start(t, tsserver.Options{Mode: mode, IdleTimeout: idleTimeout, Port: port})
	}
	return u
}

// caller is a real client, unpatched, that keeps a dead session id.
type caller struct {
	name    string
	connect func(t *testing.T, url string) func(t *testing.T) // returns: call count once, fail on any error
}

var callers = []caller{
	{"go-sdk client", func(t *testing.T, url string) func(*testing.T) {
		cs := connect(t, url)
		return func(t *testing.T) { count(t, cs) }
	}},
	{"ts-sdk client", func(t *testing.T, url string) func(*testing.T) {
		c := tsserver.StartClient(t, url)
		return func(t *testing.T) {
			t.Helper()
			if line := c.Call(t, "count"); !strings.HasPrefix(line, "OK ") {
				t.Fatalf("a call through the proxy failed: %s", line)
			}
		}
	}},
}

// Every client × server × (idle expiry, server restart): the call after
// the loss succeeds, every call ran exactly once, and the proxy saw the
// loss and the recovery.
func TestEveryClientSurvivesEveryLoss(t *testing.T) {
	for _, up := range upstreams {
		for _, cl := range callers {
			for _, loss := range []string{"idle expiry", "restart"} {
				t.Run(up.name+"/"+cl.name+"/"+loss, func(t *testing.T) {
					u := up.start(t)
					px := startProxy(t, proxy.Options{Upstream: u.url})
					call := cl.connect(t, px.url)
					call(t)
					want := 2
					if loss == "restart" {
						u.restart(t)
						want = 1 // the new process runs only the call after the loss
					} else {
						time.Sleep(3 * idleTimeout)
					}
					call(t)
					if got := u.count(t); got != want {
						t.Errorf("the server ran the tool %d times, want %d: a call ran twice or not at all", got, want)
					}
					if n := len(px.of(proxy.EvRecovered)); n != 1 {
						t.Errorf("the proxy saw %d recoveries, want 1", n)
					}
				})
			}
		}
	}
}
