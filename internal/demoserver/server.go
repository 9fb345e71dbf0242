package demoserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// DefaultAddr is the listen address when Options.Addr is empty.
const DefaultAddr = "127.0.0.1:0"

// ServerName is the serverInfo.name the demo server announces.
const ServerName = "nowledge-mem-demo"

// shutdownGrace bounds how long Close waits for in-flight HTTP requests
// before cutting the connections.
const shutdownGrace = time.Second

// Options configure the demo server. The zero value is a stateful server on
// a random loopback port whose sessions never expire.
type Options struct {
	// Addr is the listen address; empty means DefaultAddr.
	Addr string
	// Listener, when set, is served instead of listening on Addr (a
	// benchmark counts the connections it accepts). Close closes it.
	Listener net.Listener
	// IdleTimeout is the SDK's SessionTimeout; 0 means sessions never expire.
	IdleTimeout time.Duration
	// Stateless serves without sessions (the 2026-07-28 protocol era),
	// and still the legacy era to legacy clients (both eras).
	Stateless bool
	// ModernOnly serves 2026-07-28 and nothing older, as the TypeScript
	// SDK v2 with legacy: 'reject' does (modernonly.go): a legacy request
	// gets 400 -32022, GET and DELETE 405. It implies Stateless.
	ModernOnly bool
	// NoHostCheck turns off the SDK's own DNS rebinding protection (its
	// check of Host against loopback), as a server meant for a LAN runs.
	NoHostCheck bool
	// StorePath, when set, is a JSON session store mirroring the live
	// sessions: {"sessions":[{"id","client_name","created_at","last_activity"}]},
	// times in RFC 3339 with nanoseconds, rewritten atomically after every
	// change (coalesced to at most one write per StoreInterval).
	StorePath string
	// LogPath, when set, is appended with the lines a real server would log:
	// the configured idle timeout and store path at start, sessions created
	// and closed (with reason), and "Session not found" for unknown ids.
	LogPath string
	// Logger receives the demo server's own problems (a store write that
	// failed); nil discards them. Session ids in it are masked.
	Logger *slog.Logger
	// Now is the clock for recorded times; nil means time.Now. The SDK's idle
	// timer always runs on real time.
	Now func() time.Time
	// OnEvent, when set, is called for every session the server creates and
	// ends, right after the tracker recorded it and the log line was written,
	// and for every echo call it runs, from whichever goroutine noticed it (a request, a session's waiter,
	// Close). No tracker lock is held, but calls are serialised by a server
	// lock so that they come one at a time and a session's start precedes its
	// end. So OnEvent must return quickly and must not call Close or ForgetAll
	// (they end sessions and would wait for that lock: deadlock); the read-only
	// methods are fine.
	OnEvent func(Event)
}

// Server is a running demo MCP server. Its methods are safe for concurrent use.
type Server struct {
	opts    Options
	logger  *slog.Logger
	mcp     *mcp.Server
	httpSrv *http.Server
	url     string
	tracker *tracker
	store   *storeWriter
	log     *serverLog
	counter atomic.Int64

	cancel    context.CancelFunc // stops the store writer
	stopWatch chan struct{}      // closed by Close: the context watcher may stop
	wg        sync.WaitGroup     // serve loop, store writer, session waiters

	mu     sync.Mutex // guards closed against wg.Add
	closed bool

	// evMu makes "record in the tracker, log, call OnEvent" one step per
	// session start or end. It is taken before the tracker's lock, never
	// under it.
	evMu sync.Mutex

	closing   atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// Start listens on opts.Addr and serves MCP at /mcp until ctx ends or Close
// is called.
func Start(ctx context.Context, opts Options) (*Server, error) {
	s, err := newServer(opts)
	if err != nil {
		return nil, err
	}
	ln, err := s.listen()
	if err != nil {
		s.log.close()
		return nil, err
	}
	s.url = "http://" + ln.Addr().String() + "/mcp"
	if err := s.store.flush(); err != nil {
		_ = ln.Close()
		s.log.close()
		return nil, err
	}
	s.announce()
	s.launch(ctx, ln)
	return s, nil
}

// listen is Options.Listener, or a listener on Options.Addr.
func (s *Server) listen() (net.Listener, error) {
	if s.opts.Listener != nil {
		return s.opts.Listener, nil
	}
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("demoserver listen %s: %w", s.opts.Addr, err)
	}
	return ln, nil
}

// newServer builds the server and its MCP handler without listening.
func newServer(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = DefaultAddr
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.IdleTimeout < 0 {
		return nil, fmt.Errorf("demoserver: negative idle timeout %v", opts.IdleTimeout)
	}
	s := &Server{opts: opts, logger: opts.Logger, stopWatch: make(chan struct{})}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.tracker = newTracker(opts.Now, opts.IdleTimeout, func() { s.store.notify() })
	s.store = newStoreWriter(opts.StorePath, s.tracker.liveEntries)
	lf, err := openServerLog(opts.LogPath, opts.Now, s.reportErr)
	if err != nil {
		return nil, err
	}
	s.log = lf
	s.mcp = s.newMCPServer()
	var handler http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: opts.IdleTimeout, Stateless: opts.Stateless || opts.ModernOnly,
			DisableLocalhostProtection: opts.NoHostCheck})
	if opts.ModernOnly {
		handler = refuseLegacy(handler)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.observe(handler))
	s.httpSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return s, nil
}

// launch starts the goroutines: HTTP serving, the store writer, and a
// watcher that closes the server when ctx ends.
func (s *Server) launch(ctx context.Context, ln net.Listener) {
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		if err := s.httpSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.reportErr(fmt.Errorf("demoserver serve: %w", err))
		}
	}()
	go func() {
		defer s.wg.Done()
		s.store.run(runCtx, s.reportErr)
	}()
	// Not in wg: it may be the goroutine that runs Close.
	go func() {
		select {
		case <-ctx.Done():
			_ = s.Close()
		case <-s.stopWatch:
		}
	}()
}

// announce writes the start-up line a real server logs.
func (s *Server) announce() {
	s.log.info(msgConfigured, "seconds", seconds(s.opts.IdleTimeout), "store_path", s.opts.StorePath)
}

// URL is the MCP endpoint, http://127.0.0.1:port/mcp.
func (s *Server) URL() string { return s.url }

// SessionIDs lists the live sessions, oldest first.
func (s *Server) SessionIDs() []string {
	live := s.tracker.liveEntries()
	ids := make([]string, len(live))
	for i, e := range live {
		ids[i] = e.id
	}
	return ids
}

// Ended lists every session the server ended, in the order they ended.
func (s *Server) Ended() []EndedSession { return s.tracker.endedSessions() }

// Count is how many times the count tool has run.
func (s *Server) Count() int64 { return s.counter.Load() }

// ForgetAll simulates a restart that loses every session: each live session
// is closed (reason shutdown), so its id gets 404 from now on; the store is
// rewritten empty before ForgetAll returns and the start-up line is logged
// again, as a restarted server would.
func (s *Server) ForgetAll() {
	s.closeSessions(ReasonShutdown)
	if err := s.store.flush(); err != nil {
		s.reportErr(err)
	}
	s.announce()
}

// Close ends every session (reason shutdown), stops serving, writes the
// empty store and closes the log. It is safe to call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.shutdown() })
	return s.closeErr
}

func (s *Server) shutdown() error {
	close(s.stopWatch)
	s.closing.Store(true)
	s.closeSessions(ReasonShutdown)
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	var errs []error
	if err := s.httpSrv.Shutdown(ctx); err != nil {
		// A connection can outlast the grace: net/http counts one that a
		// client dialled but has not used yet as busy for 5 s. Every session
		// is closed already, so cutting the rest off is fine for a demo.
		s.logger.Debug("demoserver: forcing connections closed", "error", err)
		if err := s.httpSrv.Close(); err != nil {
			errs = append(errs, fmt.Errorf("demoserver close: %w", err))
		}
	}
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.closeSessions(ReasonShutdown) // any that started while we shut down
	s.cancel()
	s.wg.Wait()
	if err := s.store.flush(); err != nil {
		errs = append(errs, err)
	}
	s.log.close()
	return errors.Join(errs...)
}

// closeSessions closes every live SDK session and records its end now.
func (s *Server) closeSessions(r Reason) {
	for ss := range s.mcp.Sessions() {
		id := ss.ID()
		if id == "" {
			continue // a stateless request's throwaway session
		}
		s.tracker.mark(id, r)
		_ = ss.Close()
		s.endSession(id)
	}
}

// endSession records the end of id (once), logs it and reports it.
func (s *Server) endSession(id string) {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	es, ok := s.tracker.end(id)
	if !ok {
		return
	}
	s.emit(Event{Kind: EventEnd, ID: id, Client: es.Client, Reason: es.Reason, At: es.Ended}) // the truth first, as in startSession
	s.log.info(msgClosed, "session_id", id, "reason", string(es.Reason))
	s.logger.Debug("demo session ended", "session", mask.ID(id), "reason", string(es.Reason),
		"idle", es.Idle)
	s.tracker.changed()
}

func (s *Server) reportErr(err error) {
	s.logger.Warn("demoserver", "error", err)
}
