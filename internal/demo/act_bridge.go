package demo

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// legacyClient is act 5's client: the Go SDK's, pinned to the last
// protocol before 2026-07-28, as most hosts still speak it.
const (
	legacyClient  = "legacy-sdk-client"
	legacyVersion = "2025-11-25"
)

// act5: the server restarts speaking only 2026-07-28; a legacy client
// pointed at the proxy keeps working, each call run once; straight, the
// same kind of client is refused.
func (s *stage) act5(ctx context.Context, a Act) Act {
	s.n.plain("")
	s.n.say("act 5: the server restarts speaking ONLY the 2026-07-28 protocol; a legacy client keeps working through the proxy's bridge")
	cs, err := connectLegacy(ctx, s.proxyURL)
	if err != nil {
		return fail(a, "the legacy client could not connect through the proxy: %v", err)
	}
	defer cs.Close()
	if _, err := countCall(ctx, cs); err != nil {
		return fail(a, "the first call failed: %v", err)
	}
	s.n.say("client: %s (protocol %s) connected through the proxy; a call works on the legacy server", legacyClient, legacyVersion)
	if err := s.restartModernOnly(ctx); err != nil {
		return fail(a, "%v", err)
	}
	s.n.say("server: restarted modern-only (no initialize, no sessions: every legacy request gets 400 -32022)")
	if straight, err := connectLegacy(ctx, s.srv.URL()); err == nil {
		straight.Close()
		return fail(a, "a legacy client connected straight to the modern-only server")
	} else {
		s.n.say("straight to the server, a new legacy client is refused: %s", firstLine(err.Error()))
	}
	from := s.tail.Len()
	for i := range 2 {
		if _, err := countCall(ctx, cs); err != nil {
			return fail(a, "call %d after the restart failed through the proxy: %v", i+1, err)
		}
	}
	s.n.say("client: two calls after the restart succeed, unchanged: the proxy answers its initialize and ping itself and sends each call on in the 2026-07-28 shape")
	wctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	if _, err := s.tail.Wait(wctx, from, "the journal saying the proxy bridges the server", bridgeOf); err != nil {
		return fail(a, "%v", err)
	}
	if n := s.srv.Count(); n != 2 {
		return fail(a, "the modern-only server ran %d tool calls for the client's 2: a call ran twice or not at all", n)
	}
	a.OK = true
	a.Evidence = "3 calls, 0 failed; 2 on the modern-only server, each run once; the journal says the proxy bridges it"
	return a
}

// restartModernOnly stops the server and starts, at the same address, one
// that serves only 2026-07-28 (demoserver.Options.ModernOnly: the Go SDK's
// stateless handler behind a front that refuses the legacy era as the
// TypeScript SDK v2 with legacy: 'reject' does).
func (s *stage) restartModernOnly(ctx context.Context) error {
	addr := strings.TrimSuffix(strings.TrimPrefix(s.srv.URL(), "http://"), "/mcp")
	if err := s.srv.Close(); err != nil {
		return fmt.Errorf("stopping the server: %w", err)
	}
	srv, err := demoserver.Start(ctx, demoserver.Options{Addr: addr, ModernOnly: true, Logger: s.o.Logger})
	if err != nil {
		return fmt.Errorf("starting the modern-only server: %w", err)
	}
	s.mu.Lock() // the narrator reads the server from its own goroutine (allIDs)
	s.srv = srv
	s.mu.Unlock()
	return nil
}

// connectLegacy connects the Go SDK client pinned to legacyVersion.
func connectLegacy(ctx context.Context, url string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: legacyClient, Version: "1.0.0"}, nil)
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{}},
		&mcp.ClientSessionOptions{ProtocolVersion: legacyVersion})
}

func countCall(ctx context.Context, cs *mcp.ClientSession) (*mcp.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"})
	if err == nil && res.IsError {
		err = fmt.Errorf("tool error")
	}
	return res, err
}

// bridgeOf: the journal's word that the proxy bridges the demo's server.
func bridgeOf(r Record) bool {
	return r.Kind == health.EvServerMode && r.Server == ServerName && r.Extra["bridged"] == true
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
