package demo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// ErrSessionLost: the server no longer knows the session a call used. The
// call failed; the supervisor's next call opens a new session.
var ErrSessionLost = errors.New("demo: session lost")

// callTimeout bounds one tool call or handshake.
const callTimeout = 15 * time.Second

// SupervisorOptions configure a Supervisor.
type SupervisorOptions struct {
	URL        string // the MCP endpoint
	ClientName string // clientInfo.name, like the host's ("dsh-mcp-client")
	Server     string // the server's name in the watchdog config: the trigger file it answers to
	TriggerDir string // where recovery triggers appear; empty: no trigger watch
	Logger     *slog.Logger
	Now        func() time.Time // nil: time.Now
}

// Reconnect is one new session the supervisor opened.
type Reconnect struct {
	Time   time.Time
	Reason string // "start", "trigger" or "call" (the call before it failed)
	Took   time.Duration
}

// CallResult is one successful tool call.
type CallResult struct {
	Session string // the full session id (never print it: mask.ID)
	Text    string
}

// Supervisor holds one MCP client session and replaces it the way the
// patched client does: a call that meets a lost session fails and the next
// call reconnects; a recovery trigger replaces the session at once.
type Supervisor struct {
	o   SupervisorOptions
	log *slog.Logger

	mu         sync.Mutex // serialises calls and reconnects
	gen        *generation
	reconnects []Reconnect
	failed     int
}

// generation is one session; gone means the server already forgot it, so
// closing it must not send a DELETE (it would only earn a 404).
type generation struct {
	cs   *mcp.ClientSession
	gone *atomic.Bool
}

// NewSupervisor returns an unconnected supervisor.
func NewSupervisor(o SupervisorOptions) *Supervisor {
	if o.Now == nil {
		o.Now = time.Now
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Supervisor{o: o, log: log}
}

// Connect opens the first session.
func (s *Supervisor) Connect(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connect(ctx, "start")
}

func (s *Supervisor) connect(ctx context.Context, reason string) error {
	start := s.o.Now()
	gone := &atomic.Bool{}
	hc := &http.Client{Transport: skipDelete{gone: gone, next: http.DefaultTransport}}
	client := mcp.NewClient(&mcp.Implementation{Name: s.o.ClientName, Version: "1.0.0"}, nil)
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	// No standalone GET stream: the demo needs no server notifications, and
	// its retries would only add "Session not found" lines after a loss.
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.o.URL, HTTPClient: hc,
		DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		return fmt.Errorf("demo: connect %s: %w", s.o.URL, err)
	}
	s.gen = &generation{cs: cs, gone: gone}
	now := s.o.Now()
	s.reconnects = append(s.reconnects, Reconnect{Time: now, Reason: reason, Took: now.Sub(start)})
	s.log.Debug("demo client connected", "session", mask.ID(cs.ID()), "reason", reason)
	return nil
}

// drop forgets the current session; gone says the server forgot it first.
func (s *Supervisor) drop(gone bool) {
	if s.gen == nil {
		return
	}
	if gone {
		s.gen.gone.Store(true)
	}
	_ = s.gen.cs.Close()
	s.gen = nil
}

// Call runs the echo tool, reconnecting first when the last session was
// lost. A call that meets a lost session fails with ErrSessionLost.
func (s *Supervisor) Call(ctx context.Context, text string) (CallResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == nil {
		if err := s.connect(ctx, "call"); err != nil {
			s.failed++
			return CallResult{}, err
		}
	}
	id := s.gen.cs.ID()
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	res, err := s.gen.cs.CallTool(cctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
	if err != nil {
		s.failed++
		if errors.Is(err, mcp.ErrSessionMissing) {
			s.drop(true)
			return CallResult{}, fmt.Errorf("%w: %s", ErrSessionLost, mask.ID(id))
		}
		return CallResult{}, fmt.Errorf("demo: call on %s: %w", mask.ID(id), err)
	}
	return CallResult{Session: id, Text: resultText(res)}, nil
}

// Recover replaces the session now, as the patched client does when the
// watchdog's trigger names its server.
func (s *Supervisor) Recover(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop(true)
	return s.connect(ctx, "trigger")
}

// SessionID is the current session's full id ("" when none).
func (s *Supervisor) SessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == nil {
		return ""
	}
	return s.gen.cs.ID()
}

// Reconnects lists every session opened, the first included.
func (s *Supervisor) Reconnects() []Reconnect {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Reconnect(nil), s.reconnects...)
}

// Failed counts calls that failed.
func (s *Supervisor) Failed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

// Close ends the current session (DELETE, while it lives).
func (s *Supervisor) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop(false)
}

func resultText(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// skipDelete answers a DELETE for a session known to be gone itself.
type skipDelete struct {
	gone *atomic.Bool
	next http.RoundTripper
}

func (t skipDelete) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodDelete && t.gone.Load() {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return &http.Response{StatusCode: http.StatusNoContent, Status: "204 No Content", Body: http.NoBody,
			Header: http.Header{}, Request: r, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
	}
	return t.next.RoundTrip(r)
}
