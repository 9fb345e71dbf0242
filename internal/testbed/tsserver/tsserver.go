// Package tsserver starts the real TypeScript MCP SDK servers of testdata/tsservers
// (server.mjs, @modelcontextprotocol/sdk pinned in its package.json) for tests.
//
// Each Server is one node process listening on 127.0.0.1. It serves the tools echo
// (returns its text argument) and count (increments a process-wide counter) and an
// admin API used by Sessions, Forget and Count. Missing node or node_modules fail the
// test with the fix: run `make deps` (npm ci in testdata/tsservers).
//
// The process reports every session it starts and ends on stdout; they come back as
// Events (Events, Started, Ended, Options.OnEvent), the ground truth a test compares
// the watchdog against. With Options.LogPath and Options.StorePath it also keeps a
// Nowledge-Mem-like log and session store in internal/demoserver's formats, written so
// that both survive rotation and rewriting from outside.
package tsserver

import (
	"github.com/mcpwatchdog/watchdog/internal/demoserver/truth"
	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"

	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// Mode selects how the server handles sessions; see testdata/tsservers/server.mjs.
type Mode string

const (
	// Stateful issues session ids; the SDK transport itself answers an unknown id with
	// 404 JSON-RPC -32001 "Session not found" and a missing one with 400 -32000
	// "Bad Request: Mcp-Session-Id header is required".
	Stateful Mode = "stateful"
	// Stateless issues no session id and serves each POST with a fresh server; GET and
	// DELETE get 405.
	Stateless Mode = "stateless"
	// Quirk routes like the SDK's older example servers: an unknown or missing id on a
	// non-initialize POST gets 400 -32000 "Bad Request: No valid session ID provided";
	// GET and DELETE get 400 "Invalid or missing session ID".
	Quirk Mode = "quirk"
)

// Options configures Start. The zero value is a stateful server on a free port whose
// sessions never expire.
type Options struct {
	// Mode is the session handling; empty means Stateful.
	Mode Mode
	// IdleTimeout closes a session (stateful and quirk) once no request has started or
	// finished on it for this long; it is logged as SESSION_END <id> idle. Zero: never.
	// Rounded up to whole milliseconds.
	IdleTimeout time.Duration
	// JSONResponse makes POSTs answer with a JSON body instead of an SSE stream.
	JSONResponse bool
	// Port to listen on; zero picks a free one. Set it to the port of a stopped Server
	// to simulate a restart at the same URL.
	Port int
	// LogPath, when set (stateful and quirk), is the server log the node process appends
	// to in internal/demoserver's format: the configured idle timeout and store path at
	// start (only with IdleTimeout and StorePath), sessions created (session_id, client)
	// and closed (session_id, reason), and a WARN for an unknown id. Each line opens,
	// appends and closes the file, so the file may be rotated from outside.
	LogPath string
	// StorePath, when set (stateful and quirk), is the JSON session store the node
	// process keeps in internal/demoserver's format, rewritten atomically (empty at
	// start, then after every change, at most every 20 ms).
	StorePath string
	// OnEvent, when set, receives every session start and end, and every echo call, as
	// the stdout reader reads it, one call at a time and in the server's order, before Events, Started, Ended and
	// WaitEnded show it; it must return quickly (stdout is not read meanwhile). It is
	// never called after Stop or Kill has returned.
	OnEvent func(Event)

	// sentinelDelay holds back the stateful server's sentinel after it listens (tests of
	// the window a restart opens).
	sentinelDelay time.Duration
}

// Server is a running server process, killed when the test ends.
type Server struct {
	url   string
	admin string // scheme://host:port, no path
	proc  *process

	onEvent func(Event)

	mu     sync.Mutex
	events []Event
}

// startTimeout bounds how long node may take to print its LISTENING line; generous
// because a loaded 2-core machine can be slow to load the SDK.
const startTimeout = 60 * time.Second

// Start runs `node testdata/tsservers/server.mjs` with opts and waits until it listens.
// It fails the test (never skips) when node or the npm packages are missing, and stops
// the server when the test ends. Call it on the test's goroutine; elsewhere use Launch.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := Launch(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("tsserver %s stderr:\n%s", opts.mode(), s.Stderr())
		}
	})
	return s
}

// Launch is Start for callers that are not a test's goroutine (a chaos soak restarting
// servers from its fault loop): it returns what went wrong, and the caller must Stop
// the server.
func Launch(opts Options) (*Server, error) {
	args, err := opts.args()
	if err != nil {
		return nil, fmt.Errorf("tsserver: %w", err)
	}
	root, err := repo.Root()
	if err != nil {
		return nil, fmt.Errorf("tsserver: %w", err)
	}
	node, err := checkDeps(root, nil)
	if err != nil {
		return nil, fmt.Errorf("tsserver: %w", err)
	}
	return LaunchProgram(Program{Name: fmt.Sprintf("tsserver: %s server", opts.mode()), Bin: node,
		Dir: serverDir(root), Args: args, OnEvent: opts.OnEvent})
}

// Program is another server that speaks server.mjs's stdout (LISTENING <url>, and
// session events when it has them) and its admin API (/admin/count, /admin/sessions,
// /admin/forget): a FastMCP server, for one (internal/testbed/pypeer).
type Program struct {
	Name     string // in failures
	Bin, Dir string
	Args     []string
	OnEvent  func(Event) // as Options.OnEvent
}

// LaunchProgram runs p and waits until it listens; the caller must Stop it.
func LaunchProgram(p Program) (*Server, error) {
	s := &Server{onEvent: p.OnEvent}
	proc, err := startProcess(p.Bin, p.Dir, p.Args, s.onLine)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	s.proc = proc
	url, err := proc.waitListening(startTimeout)
	if err != nil {
		proc.stop()
		return nil, fmt.Errorf("%s did not start: %w\nstderr:\n%s", p.Name, err, proc.stderr.String())
	}
	s.url = url
	s.admin = strings.TrimSuffix(url, "/mcp")
	return s, nil
}

// StartProgram is LaunchProgram for a test: it fails the test when p does not start and
// stops it when the test ends.
func StartProgram(t testing.TB, p Program) *Server {
	t.Helper()
	s, err := LaunchProgram(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("%s stderr:\n%s", p.Name, s.Stderr())
		}
	})
	return s
}

// Stderr is what the node process has written to stderr (its tail).
func (s *Server) Stderr() string { return s.proc.stderr.String() }

// URL is the MCP endpoint, http://127.0.0.1:PORT/mcp.
func (s *Server) URL() string { return s.url }

// Stop kills the server process with SIGKILL (exec.CommandContext's cancel) and waits
// for it; later requests fail to connect. Nothing is flushed: the log and the store are
// left as the last completed write made them. Safe to call more than once; the test's
// cleanup calls it too.
func (s *Server) Stop() { s.proc.stop() }

// Kill is Stop, named for what it does: SIGKILL, then wait. A chaos test reads better
// with it.
func (s *Server) Kill() { s.proc.stop() }

// Events returns the session starts and ends and the echo calls read so far, in the
// server's order.
func (s *Server) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

// Started returns the session starts read so far, in order.
func (s *Server) Started() []Event { return s.eventsOf(truth.Start) }

// Calls returns the echo calls the server ran so far, in order.
func (s *Server) Calls() []Event { return s.eventsOf(truth.Call) }

// Ended returns the SESSION_END lines seen so far, each "SESSION_END <id> <reason>"
// with reason idle, deleted, forgotten or closed.
func (s *Server) Ended() []string {
	var lines []string
	for _, e := range s.eventsOf(truth.End) {
		lines = append(lines, "SESSION_END "+e.ID+" "+e.Reason)
	}
	return lines
}

func (s *Server) eventsOf(kind truth.Kind) []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Event
	for _, e := range s.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// WaitEnded waits until the session id has ended and returns the reason; it fails the
// test when that does not happen within a minute.
func (s *Server) WaitEnded(t testing.TB, id string) string {
	t.Helper()
	prefix := "SESSION_END " + id + " "
	deadline := time.Now().Add(time.Minute)
	for {
		for _, line := range s.Ended() {
			if reason, ok := strings.CutPrefix(line, prefix); ok {
				return reason
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("tsserver: session %s did not end; %d others ended so far", mask.ID(id), len(s.Ended()))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// onLine runs on the stdout reader goroutine, the only caller of onEvent. OnEvent
// comes first, so once Events, Started, Ended or WaitEnded show an event, OnEvent has
// returned from it.
func (s *Server) onLine(line string) {
	e, ok := truth.Parse(line, time.Now())
	if !ok {
		return
	}
	if s.onEvent != nil {
		s.onEvent(e)
	}
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
}

func (o Options) mode() Mode {
	if o.Mode == "" {
		return Stateful
	}
	return o.Mode
}

func (o Options) args() ([]string, error) {
	switch o.mode() {
	case Stateful, Stateless, Quirk:
	default:
		return nil, fmt.Errorf("unknown mode %q (want stateful, stateless or quirk)", o.Mode)
	}
	if o.IdleTimeout < 0 || o.Port < 0 || o.Port > 65535 {
		return nil, fmt.Errorf("bad options: idle timeout %v, port %d", o.IdleTimeout, o.Port)
	}
	idleMs := int64((o.IdleTimeout + time.Millisecond - 1) / time.Millisecond)
	args := []string{"server.mjs",
		"--mode", string(o.mode()),
		"--port", fmt.Sprint(o.Port),
		"--idle-ms", fmt.Sprint(idleMs),
	}
	if o.JSONResponse {
		args = append(args, "--json-response")
	}
	if o.sentinelDelay > 0 {
		args = append(args, "--sentinel-delay-ms", fmt.Sprint(o.sentinelDelay.Milliseconds()))
	}
	// node runs in testdata/tsservers: relative paths must mean the caller's directory.
	for _, f := range []struct{ flag, path string }{{"--log", o.LogPath}, {"--store", o.StorePath}} {
		if f.path == "" {
			continue
		}
		abs, err := filepath.Abs(f.path)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", f.flag, f.path, err)
		}
		args = append(args, f.flag, abs)
	}
	return args, nil
}
