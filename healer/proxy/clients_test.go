package proxy_test

import (
	"net"
	"slices"
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
	live    func(t *testing.T) []string // the sessions the server holds now
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
	u := &upstream{url: srv.URL(), count: func(*testing.T) int { return int(srv.Count()) },
		live: func(*testing.T) []string { return srv.SessionIDs() }}
	addr := strings.TrimSuffix(strings.TrimPrefix(srv.URL(), "http://"), "/mcp")
	u.restart = func(t *testing.T) {
		_ = srv.Close()
		srv = startServer(t, demoserver.Options{Addr: addr, IdleTimeout: idleTimeout})
	}
	return u
}

func tsUpstream(t *testing.T, mode tsserver.Mode) *upstream {
	srv := tsserver.Start(t, tsserver.Options{Mode: mode, IdleTimeout: idleTimeout})
	u := &upstream{url: srv.URL(), count: func(t *testing.T) int { return srv.Count(t) },
		live: func(t *testing.T) []string { return srv.Sessions(t) }}
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
	{"ts-sdk client", func(t *testing.T, url string) func(*testing.T) { return tsCaller(tsserver.StartClient(t, url)) }},
	{"mcp-remote", func(t *testing.T, url string) func(*testing.T) { return tsCaller(tsserver.StartBridgedClient(t, url)) }},
}

func tsCaller(c *tsserver.Client) func(*testing.T) {
	return func(t *testing.T) {
		t.Helper()
		if line := c.Call(t, "count"); !strings.HasPrefix(line, "OK ") {
			t.Fatalf("a call through the proxy failed: %s", line)
		}
	}
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
						settleConns()
					} else {
						time.Sleep(3 * idleTimeout)
					}
					call(t)
					if got := u.count(t); got != want {
						t.Errorf("the server ran the tool %d times, want %d: a call ran twice or not at all", got, want)
					}
					// At least the one the call met; a host's event stream that
					// reconnected meanwhile may have met one before it.
					rec := px.of(proxy.EvRecovered)
					if len(rec) == 0 {
						t.Error("the proxy saw no recovery")
					}
					live := u.live(t)
					for _, ev := range rec {
						if slices.Contains(live, ev.OldUpstream) {
							t.Errorf("a recovery names a session the server still holds: %+v", ev)
						}
					}
				})
			}
		}
	}
}

// After a new upstream session the host is told to read its tools again,
// on its GET stream: the lists may have changed across a server restart.
func TestHostToldToRereadTools(t *testing.T) {
	srv := tsserver.Start(t, tsserver.Options{Mode: tsserver.Stateful})
	px := startProxy(t, proxy.Options{Upstream: srv.URL()})
	c := tsserver.StartClient(t, px.url)
	if line := c.Call(t, "count"); !strings.HasPrefix(line, "OK ") {
		t.Fatal(line)
	}
	srv.Forget(t)
	if line := c.Call(t, "count"); !strings.HasPrefix(line, "OK ") {
		t.Fatalf("the call after the loss: %s", line)
	}
	waitFor(t, "tools/list_changed at the client", func() bool {
		return slices.Contains(c.Notes(), "notifications/tools/list_changed")
	})
}

// settleConns gives clients a moment to see the connections a restart
// closed: a request written into a kept-alive connection at the instant
// its server closes it fails with no answer (EOF), and nobody can tell
// whether it ran, so neither the proxy nor a client sends it again. Real
// restarts take longer than the kernel's notice of the close.
func settleConns() { time.Sleep(200 * time.Millisecond) }
