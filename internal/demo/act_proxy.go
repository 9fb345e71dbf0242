package demo

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// plainClient is act 4's client: the Go SDK's own, which never reconnects
// by itself (a lost session is terminal for it), as most hosts' clients.
const plainClient = "unpatched-sdk-client"

// act4: an unpatched client pointed at the watchdog's proxy survives an
// expiry and a server restart without one failed call.
func (s *stage) act4(ctx context.Context, a Act) Act {
	s.n.plain("")
	s.n.say("act 4: an UNPATCHED client through the watchdog's proxy: an expiry and a restart, no failed call")
	s.sup.Close()
	url, err := s.restartProxied(ctx)
	if err != nil {
		return fail(a, "%v", err)
	}
	s.proxyURL = url
	s.n.say("the watchdog proxies %s on %s; the client is given its URL (which `watchdog status` prints, a secret path in it)", ServerName, s.proxyListen)
	cs, err := demoserver.Connect(ctx, url, plainClient)
	if err != nil {
		return fail(a, "the client could not connect through the proxy: %v", err)
	}
	defer cs.Close()
	from := s.tail.Len()
	if err := plainCall(ctx, cs); err != nil {
		return fail(a, "the first call failed: %v", err)
	}
	s.n.say("client: a call, then idle; the server ends its session after %s", s.idle)
	if err := waitCond(ctx, func() bool { return endedBy(s.srv, plainClient) >= 1 }); err != nil {
		return fail(a, "the server did not end the session: %v", err)
	}
	if err := plainCall(ctx, cs); err != nil {
		return fail(a, "the call after the expiry failed: %v", err)
	}
	s.n.say("client: the call after the expiry succeeds; the proxy opened a new session and sent it again")
	s.srv.ForgetAll()
	s.n.say("server: restarted (simulated), every session forgotten")
	if err := plainCall(ctx, cs); err != nil {
		return fail(a, "the call after the restart failed: %v", err)
	}
	s.n.say("client: the call after the restart succeeds too")
	wctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	var took []time.Duration
	err = waitCond(wctx, func() bool {
		took = took[:0]
		for _, r := range s.tail.Since(from) {
			if proxyRecovery(r) {
				took = append(took, r.Facts.(health.Recovery).Took)
			}
		}
		return len(took) >= 2
	})
	if err != nil {
		return fail(a, "the journal shows %d recoveries by the proxy, want 2: %v", len(took), err)
	}
	a.OK = true
	a.Evidence = fmt.Sprintf("3 calls, 0 failed; 2 recoveries journaled by the proxy (the calls took %s and %s across them)",
		took[0], took[1])
	return a
}

// restartProxied starts the watchdog again, proxying the server on a
// free port, and returns the proxy's URL with the secret the daemon keeps.
func (s *stage) restartProxied(ctx context.Context) (string, error) {
	listen, err := freeLoopback()
	if err != nil {
		return "", fmt.Errorf("no free port for the proxy: %w", err)
	}
	s.proxyListen = listen
	if err := s.stopDaemon(); err != nil {
		return "", fmt.Errorf("stopping the watchdog: %w", err)
	}
	if err := s.startDaemon(ctx, false); err != nil {
		return "", err
	}
	secret, err := proxy.LoadSecret(s.state)
	if err != nil {
		return "", fmt.Errorf("the proxy's secret: %w", err)
	}
	return proxy.URLFor(listen, secret), nil
}

func proxyRecovery(r Record) bool {
	rec, ok := r.Facts.(health.Recovery)
	return ok && r.Kind == health.EvRecovered && r.Server == ServerName && rec.Source == health.SourceProxy
}

func plainCall(ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "through the proxy"}})
	if err == nil && res.IsError {
		err = fmt.Errorf("tool error")
	}
	return err
}

// endedBy counts the sessions of client the server ended.
func endedBy(srv *demoserver.Server, client string) int {
	n := 0
	for _, e := range srv.Ended() {
		if e.Client == client {
			n++
		}
	}
	return n
}

// freeLoopback is a loopback address nothing listens on (at the time).
func freeLoopback() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
