package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/internal/testbed/pypeer"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsmodern"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

type probeOut struct {
	Era            string      `json:"era"`
	Stateful       bool        `json:"stateful"`
	UnknownSession string      `json:"unknown_session"`
	LostAnswer     host.Answer `json:"lost_answer"`
	Delete         string      `json:"delete"`
	SessionLeft    bool        `json:"session_left"`
}

func probeJSON(t *testing.T, url string) probeOut {
	t.Helper()
	code, out, stderr := runWatchdog(t, "probe", url, "--json", "--config", daemontest.WriteConfig(t, t.TempDir(), "notify = false"))
	if code != 0 {
		t.Fatalf("probe %s: exit %d: %s", url, code, stderr)
	}
	var p probeOut
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("probe --json: %v: %s", err, out)
	}
	return p
}

// TestProbeRealServers runs `watchdog probe` against the Go SDK and the
// TypeScript SDK (stateful, stateless and with the 400 quirk), and checks
// how each answers an unknown session and that no probe session is left
// behind.
//
// Long: a subtest per server, each checked whole.
func TestProbeRealServers(t *testing.T) {
	t.Parallel()
	t.Run("go stateful", func(t *testing.T) {
		t.Parallel()
		srv, err := demoserver.Start(context.Background(), demoserver.Options{IdleTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		p := probeJSON(t, srv.URL())
		if !p.Stateful || p.UnknownSession != "404 (spec), plain text" || p.LostAnswer != host.NotFoundText || p.SessionLeft {
			t.Fatalf("probe %+v", p)
		}
		if ids := srv.SessionIDs(); len(ids) != 0 {
			t.Fatalf("the probe left %d session(s) on the server", len(ids))
		}
	})
	t.Run("go stateless", func(t *testing.T) {
		t.Parallel()
		srv, err := demoserver.Start(context.Background(), demoserver.Options{Stateless: true})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		if p := probeJSON(t, srv.URL()); p.Stateful || p.Era != "both eras" {
			t.Fatalf("probe %+v, want a stateless server of both eras", p)
		}
	})
	t.Run("typescript v2 modern-only", func(t *testing.T) {
		t.Parallel()
		srv := tsmodern.Start(t, tsmodern.Options{})
		if p := probeJSON(t, srv.URL()); p.Stateful || p.Era != "modern-only" || p.SessionLeft {
			t.Fatalf("probe %+v, want a modern-only server", p)
		}
	})
	for _, tt := range []struct {
		mode     tsserver.Mode
		stateful bool
		unknown  string
		answer   host.Answer
	}{
		{tsserver.Stateful, true, "404 (spec), JSON-RPC error", host.NotFoundRPC},
		{tsserver.Quirk, true, "400 quirk", host.BadRequest},
		{tsserver.Stateless, false, "", ""},
	} {
		t.Run("typescript "+string(tt.mode), func(t *testing.T) {
			t.Parallel()
			srv := tsserver.Start(t, tsserver.Options{Mode: tt.mode})
			p := probeJSON(t, srv.URL())
			if p.Stateful != tt.stateful || !strings.HasPrefix(p.UnknownSession, tt.unknown) || p.LostAnswer != tt.answer {
				t.Fatalf("probe %+v, want stateful=%v unknown session %q", p, tt.stateful, tt.unknown)
			}
			if p.SessionLeft {
				t.Fatalf("probe says it left a session: %+v", p)
			}
			if ids := srv.Sessions(t); len(ids) != 0 {
				t.Fatalf("the probe left %d session(s) on the server", len(ids))
			}
		})
	}
}

// TestProbeFastMCP: FastMCP (stateful HTTP) answers an unknown session
// 404 with -32600 "Session not found", the spec's answer, and serves the
// sessionless 2026-07-28 era beside its sessions; the probe leaves none.
func TestProbeFastMCP(t *testing.T) {
	t.Parallel()
	srv := pypeer.StartFastMCP(t, pypeer.FastMCPOptions{IdleTimeout: time.Minute})
	p := probeJSON(t, srv.URL())
	if !p.Stateful || p.UnknownSession != "404 (spec), JSON-RPC error" || p.LostAnswer != host.NotFoundRPC || p.Era != "both eras" || p.SessionLeft {
		t.Fatalf("probe %+v, want a stateful server of both eras answering 404 to an unknown session", p)
	}
	if ids := srv.Sessions(t); len(ids) != 0 {
		t.Fatalf("the probe left %d session(s) on the server", len(ids))
	}
}

// TestProbeNoJSONRPCAnswerExitsOne: measurement F of issue 15. A probe of
// an endpoint answering 200 with invalid JSON exited 0. Now a probe that
// got no JSON-RPC answer exits 1 and says what came back.
func TestProbeNoJSONRPCAnswerExitsOne(t *testing.T) {
	t.Parallel()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc": oops`)
	}))
	t.Cleanup(hs.Close)
	cfg := daemontest.WriteConfig(t, t.TempDir(), "notify = false")
	for _, args := range [][]string{{"probe", hs.URL}, {"probe", hs.URL, "--json"}} {
		code, _, stderr := runWatchdog(t, append(args, "--config", cfg)...)
		if code != exitFailed {
			t.Errorf("%v: exit %d, want 1; stderr %q", args, code, stderr)
		}
		for _, want := range []string{"no JSON-RPC answer", "status 200", "content type application/json", `starting "{"jsonrpc": oops"`} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr %q does not say %q", args, stderr, want)
			}
		}
	}
}

// TestProbeEscapesServerName: measurement A of issue 15. `watchdog probe`
// printed a server's serverInfo.name raw: a server chooses it, escape
// sequences included. The text shows it escaped; --json keeps its true
// value.
func TestProbeEscapesServerName(t *testing.T) {
	t.Parallel()
	const name = "\x1b]0;pwned\x07evil\x1b[2J\u202eserver\nforged: yes"
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1\x1b[5m"}, nil)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: slog.New(slog.DiscardHandler)}))
	t.Cleanup(hs.Close)
	cfg := daemontest.WriteConfig(t, t.TempDir(), "notify = false")
	code, out, stderr := runWatchdog(t, "probe", hs.URL, "--config", cfg)
	if code != exitOK {
		t.Fatalf("probe: exit %d: %s", code, stderr)
	}
	rawTerminal(t, "probe", out+stderr)
	if !strings.Contains(out, `\x1b]0;pwned\x07evil\x1b[2J\u202eserver\nforged: yes 1\x1b[5m`) {
		t.Errorf("probe does not show the server's name escaped:\n%s", out)
	}
	code, out, stderr = runWatchdog(t, "probe", hs.URL, "--json", "--config", cfg)
	var rep struct {
		ServerName string `json:"server_name"`
	}
	rawTerminal(t, "probe --json", out)
	if err := json.Unmarshal([]byte(out), &rep); code != exitOK || err != nil || rep.ServerName != name {
		t.Errorf("probe --json: exit %d, %v, server_name %q; want the true name; stderr %s", code, err, rep.ServerName, stderr)
	}
}

// TestProbeHidesURLCredentials: measurement D of issue 15. A URL that did
// not parse was echoed whole, credentials included, and a query token
// came back in every transport error.
func TestProbeHidesURLCredentials(t *testing.T) {
	t.Parallel()
	cfg := daemontest.WriteConfig(t, t.TempDir(), "notify = false")
	tests := []struct {
		name, url string
		code      int
		want      string
	}{
		{"a token in the query of a closed port", "http://" + daemontest.FreePort(t) + "/mcp?token=hunter2-token", exitFailed, "token=REDACTED"},
		{"a password that does not parse", "http://admin:hunter2%zz@127.0.0.1:1/mcp", exitUsage, `http://127.0.0.1:1/…: invalid URL escape "%zz"`},
		{"no scheme or host to be found", "hunter2%zz", exitUsage, "<unparseable URL>"},
	}
	for _, tt := range tests {
		for _, args := range [][]string{{"probe", tt.url}, {"probe", tt.url, "--json"}} {
			code, out, stderr := runWatchdog(t, append(args, "--config", cfg)...)
			if code != tt.code || !strings.Contains(out+stderr, tt.want) {
				t.Errorf("%s: exit %d, output %q; want exit %d saying %q", tt.name, code, out+stderr, tt.code, tt.want)
			}
			if strings.Contains(out+stderr, "hunter2") {
				t.Errorf("%s: the output shows the credential:\n%s", tt.name, out+stderr)
			}
		}
	}
}
