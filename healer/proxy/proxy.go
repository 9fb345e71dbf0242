package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/mcpwatchdog/watchdog/internal/peer"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// Defaults for the zero values in [Options].
const (
	DefaultMaxRequest = 4 << 20  // a host's request body
	DefaultMaxAnswer  = 64 << 20 // one POST answer, streamed
	// DefaultMaxSessions bounds the sessions kept: past it the least
	// recently used one without a GET stream is let go, upstream with
	// DELETE. Hosts hold a handful each; an idle one costs the proxy's
	// heap well under 1 KiB (BenchmarkHeldSessions). The state file is
	// written whole when the table changes (~3 MiB, tens of ms, at the
	// cap), one write shared by the sessions opened meanwhile (table.save).
	DefaultMaxSessions = 10000
	// DefaultAnswerTimeout bounds the wait for a server's answer to begin
	// (its headers): longer than a slow tool takes, and than most hosts'
	// own request timeouts (60 s in the TypeScript SDK), so the host gives
	// up first, which cancels the upstream request.
	DefaultAnswerTimeout = 10 * time.Minute
	// DefaultMaxHeader bounds a host's request headers (431 past it);
	// hosts send a few KiB at most, Authorization included.
	DefaultMaxHeader = 64 << 10
	// DefaultHeaderTimeout bounds the wait for a host's request headers.
	DefaultHeaderTimeout = 10 * time.Second
	// DefaultMaxPending bounds the connections that have not sent a whole
	// request yet (slowloris): past it the oldest such one is closed, so
	// a host's fresh connection always gets in.
	DefaultMaxPending = 128
	// Path is where the proxy serves MCP, after its secret (see URL).
	Path = proxyurl.Path
)

// ErrNotLoopback: the proxy listens on loopback addresses only; elsewhere
// it would hand anyone on the network the host's sessions.
var ErrNotLoopback = errors.New("the proxy listens on loopback addresses only (127.0.0.1, ::1, localhost)")

// Options configure a [Proxy]. Each zero value documents its default.
type Options struct {
	// Server is the server's name, for events and logs.
	Server string
	// Upstream is the server's MCP endpoint. Required.
	Upstream string
	// Secret is the first segment of the proxy's path (see URL, NewSecret,
	// LoadSecret): a request without it gets 404. Required.
	Secret string
	// AllowInsecure permits plain http to an upstream that is not loopback.
	AllowInsecure bool
	// Headers are extra headers for the server (config), sent where the
	// host did not send the same header itself.
	Headers map[string]string
	// IdleTimeout is the server's idle timeout: keep-warm pings at half of
	// it, and a host silent for longer is gone. 0: neither.
	IdleTimeout time.Duration
	// KeepWarm pings each upstream session at half IdleTimeout.
	KeepWarm bool
	// StateFile keeps the sessions across restarts (0600). "": memory only.
	StateFile string
	// KnownFile keeps the last-known server across restarts (0600,
	// replaced atomically, at most MaxKnown of results): its initialize
	// and server/discover results and its lists' first pages, as last
	// seen through the proxy, to answer a host that starts while the
	// server is down (attach.go). "": memory only.
	KnownFile string
	// CallWait bounds how long a host's request waits for a server that
	// is down before it fails with an error naming the server. 0:
	// DefaultCallWait.
	CallWait time.Duration
	// InitWait bounds how long a host's initialize waits for a server
	// that is down and that the proxy knows nothing of. 0:
	// DefaultInitWait.
	InitWait time.Duration
	// MaxRequest and MaxAnswer cap a request body and one POST answer.
	// 0: DefaultMaxRequest, DefaultMaxAnswer.
	MaxRequest, MaxAnswer int64
	// MaxSessions caps the sessions kept. 0: DefaultMaxSessions.
	MaxSessions int
	// AnswerTimeout bounds the wait for an upstream answer's headers; the
	// host then gets a 504 and the request is not sent again. 0:
	// DefaultAnswerTimeout.
	AnswerTimeout time.Duration
	// MaxHeader caps a host's request headers in bytes. 0: DefaultMaxHeader.
	MaxHeader int
	// HeaderTimeout bounds the wait for a host's request headers. 0:
	// DefaultHeaderTimeout.
	HeaderTimeout time.Duration
	// MaxPending caps the connections that have not sent a whole request
	// yet. 0: DefaultMaxPending.
	MaxPending int
	// OnSighting receives what the proxy saw (new sessions, recoveries). It
	// is called from request goroutines and must not block. nil: none.
	OnSighting func(Sighting)
	// Logger receives problems; ids in it are masked, bodies never logged.
	// nil: discard.
	Logger *slog.Logger
	// Now is the clock for activity times. nil: time.Now.
	Now func() time.Time
	// HTTPClient carries the upstream requests; redirects are never
	// followed. nil: a client of its own, which keeps a connection per
	// concurrent call (see upstreamTransport).
	HTTPClient *http.Client
}

// Proxy serves one server's proxy. Its methods are safe for concurrent use.
type Proxy struct {
	opts     Options
	endpoint string // "/<secret>/mcp"
	log      *slog.Logger
	hc       *http.Client
	// rt carries the forwarded requests when the proxy owns its transport:
	// straight to it, without the client's per-request copy of the headers
	// (kept for redirects, which the proxy never follows). nil: hc.
	rt       http.RoundTripper
	sessions *table
	known    *knownBook      // the last-known server (known.go)
	ping     *mcphttp.Client // for checks with the config's headers only

	eras eraBook // the server's protocol era (era.go)
	// The fast path (fast.go): its upstream connections (nil: none, every
	// request takes the general path), the config's headers as it sends
	// them, and how many requests took which path.
	fast        *upstreamConns
	fastHeaders []configLine
	paths       *pathCounts

	modeMu    sync.Mutex
	stateless bool          // the server issued no session id: pass everything as is
	oauthSeen atomic.Bool   // EvOAuth was told
	idle      time.Duration // the server's idle timeout (Options.IdleTimeout, or learned)
	retune    chan struct{} // SetIdleTimeout changed idle
}

// New checks opts and loads the state file. It listens nowhere yet.
func New(opts Options) (*Proxy, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.MaxRequest = positive(opts.MaxRequest, DefaultMaxRequest)
	opts.MaxAnswer = positive(opts.MaxAnswer, DefaultMaxAnswer)
	opts.MaxSessions = int(positive(int64(opts.MaxSessions), DefaultMaxSessions))
	opts.AnswerTimeout = time.Duration(positive(int64(opts.AnswerTimeout), int64(DefaultAnswerTimeout)))
	opts.HeaderTimeout = time.Duration(positive(int64(opts.HeaderTimeout), int64(DefaultHeaderTimeout)))
	opts.MaxHeader = int(positive(int64(opts.MaxHeader), DefaultMaxHeader))
	opts.MaxPending = int(positive(int64(opts.MaxPending), DefaultMaxPending))
	opts.CallWait = time.Duration(positive(int64(opts.CallWait), int64(DefaultCallWait)))
	opts.InitWait = time.Duration(positive(int64(opts.InitWait), int64(DefaultInitWait)))
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.OnSighting == nil {
		opts.OnSighting = func(Sighting) {}
	}
	if err := CheckSecret(opts.Secret); err != nil {
		return nil, fmt.Errorf("proxy for %s: secret: %w", opts.Server, err)
	}
	hc := noRedirects(opts.HTTPClient)
	ping, err := mcphttp.New(mcphttp.Options{URL: opts.Upstream, Headers: opts.Headers, AllowInsecure: opts.AllowInsecure, HTTPClient: hc})
	if err != nil {
		return nil, fmt.Errorf("proxy for %s: %w", opts.Server, err)
	}
	p := &Proxy{opts: opts, endpoint: "/" + opts.Secret + Path, log: opts.Logger.With("server", opts.Server, "part", "proxy"), hc: hc, ping: ping,
		idle: opts.IdleTimeout, retune: make(chan struct{}, 1)}
	if u, uerr := url.Parse(opts.Upstream); opts.HTTPClient == nil && uerr == nil && u.User == nil {
		p.rt = hc.Transport // a URL with user:pass needs the client, which turns it into Basic auth
	}
	p.sessions, err = loadTable(opts.StateFile, opts.MaxSessions, p.log)
	if err != nil {
		return nil, err
	}
	p.known = loadKnown(opts.KnownFile, p.log)
	p.paths = newPathCounts()
	if lines, ok := configLines(opts.Headers); ok && opts.HTTPClient == nil {
		p.fast, p.fastHeaders = newUpstreamConns(opts.Upstream), lines
	}
	return p, nil
}

// servesFast reports whether this server's requests may take the fast
// path (fast.go: HTTP/1.1 on kept connections of the proxy's own, the
// session header the only change). No when there is no fast path to the
// server (https, a proxy from the environment, a client of the caller's)
// or when every request must be read or changed beyond its session
// header: a server without sessions. Whatever else must see each request
// says no here, and its requests take the general path (ServeHTTP).
func (p *Proxy) servesFast() bool {
	return p.fast != nil && !p.isStateless()
}

// Listen opens the loopback listener for addr ("127.0.0.1:PORT").
func Listen(addr string) (net.Listener, error) {
	if err := CheckListen(addr); err != nil {
		return nil, err
	}
	return net.Listen("tcp", addr)
}

// CheckListen reports whether addr is a loopback host:port.
func CheckListen(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return fmt.Errorf("%q is not host:port: %w", addr, ErrNotLoopback)
	}
	if !proxyurl.IsLoopback(host) {
		return fmt.Errorf("%q: %w", addr, ErrNotLoopback)
	}
	return nil
}

// Serve answers on ln until ctx ends, and keeps the sessions warm. Only
// connections of the user the process runs as are served (peer.Own):
// the proxy adds the config's headers to what it forwards.
func (p *Proxy) Serve(ctx context.Context, ln net.Listener) error {
	// No read or write timeout: GET streams and SSE answers last as long
	// as they do (IdleTimeout counts only between requests). Idle
	// kept-alive connections of hosts that went away are closed after two
	// minutes; connections that never finish a request are bounded in
	// time, header size and number.
	ln = peer.Own(ln, p.refused)
	pending := newPendingConns(p.opts.MaxPending)
	general := newHandoff(ln.Addr())
	srv := &http.Server{Handler: p, ReadHeaderTimeout: p.opts.HeaderTimeout, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: p.opts.MaxHeader, ConnState: connState(pending), ConnContext: connContext,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	fs := newFastServer(p, pending, general)
	var wg sync.WaitGroup
	wg.Go(func() { p.tend(ctx) })
	wg.Go(func() { _ = srv.Serve(general) })
	wg.Go(func() {
		<-ctx.Done()
		_ = ln.Close()
		_ = general.Close() // a connection given from now on is closed, not waited for
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		_ = srv.Close() // GET streams do not end by themselves
	})
	err := p.accept(ctx, ln, fs)
	fs.shutdown(time.Second)
	wg.Wait()
	if p.fast != nil {
		p.fast.closeAll()
	}
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// ServeHTTP routes the MCP endpoint's three methods. A path without the
// secret is not found, and never logged: it may hold a near miss.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.paths.generalOne(r)
	if !p.secretPath(r.URL.Path) {
		http.NotFound(w, r)
		return
	}
	if reason := foreign(r); reason != "" {
		p.log.Warn("refused a request that did not come from this machine's host", "why", reason)
		http.Error(w, "forbidden: "+reason, http.StatusForbidden)
		return
	}
	if r.Method != http.MethodPost && p.bridgeLocal(w, r) { // bridge.go: GET and DELETE on a bridged session
		return
	}
	switch r.Method {
	case http.MethodPost:
		p.post(w, r)
	case http.MethodGet:
		p.get(w, r)
	case http.MethodDelete:
		p.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// Mode is what the proxy knows of the server's protocol era.
func (p *Proxy) isStateless() bool {
	p.modeMu.Lock()
	defer p.modeMu.Unlock()
	return p.stateless
}

func (p *Proxy) setStateless(v bool) {
	p.modeMu.Lock()
	defer p.modeMu.Unlock()
	p.stateless = v
}

func positive(v, def int64) int64 {
	if v <= 0 {
		return def
	}
	return v
}

func noRedirects(hc *http.Client) *http.Client {
	c := &http.Client{Transport: upstreamTransport()}
	if hc != nil {
		*c = *hc
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// maxIdleUpstream is how many idle connections to the server the proxy
// keeps. net/http's default keeps two: with more calls at once than that,
// every call that ended past the second closed its connection, and the
// next one dialled anew (a connect, a goroutine pair and their buffers:
// the most of the proxy's cost per call at 8 concurrent calls). Hosts
// make a few calls at once; this covers a busy machine's.
const maxIdleUpstream = 256

// upstreamTransport is the proxy's own transport to its server.
func upstreamTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns, t.MaxIdleConnsPerHost = maxIdleUpstream, maxIdleUpstream
	return t
}
