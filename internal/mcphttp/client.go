package mcphttp

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// Defaults for the zero values in [Options].
const (
	DefaultTimeout       = 5 * time.Second
	DefaultMaxBody       = 1 << 20 // 1 MiB: far above any ping or initialize answer
	DefaultClientName    = "mcp-watchdog"
	DefaultClientVersion = "dev"
)

var (
	// ErrInsecure: plain http to a host that is not loopback would send
	// session ids and headers unencrypted.
	ErrInsecure = errors.New("plain http to a non-loopback host would send session ids and headers unencrypted; use https, or set allow_insecure = true")
	// ErrInvalidURL: the URL is not an absolute http(s) URL, or carries
	// credentials that would end up in logs.
	ErrInvalidURL = errors.New("invalid MCP endpoint URL")
	// ErrReservedHeader: an extra header would override one this client sets
	// itself (Accept, Content-Type, Mcp-Session-Id, MCP-Protocol-Version,
	// Mcp-Method).
	ErrReservedHeader = errors.New("header is set by the MCP client itself")
	// ErrBodyTooLarge: the answer exceeded [Options.MaxBody] before the
	// response to our request was complete.
	ErrBodyTooLarge = errors.New("answer body exceeds the size limit")
)

// Options configure a [Client]. Each zero value documents its default.
type Options struct {
	// URL is the MCP endpoint, e.g. http://127.0.0.1:14242/mcp.
	URL string
	// Headers are extra request headers (Authorization, X-NMEM-API-Key...),
	// already expanded. nil: none.
	Headers map[string]string
	// AllowInsecure permits plain http to a host that is not loopback.
	AllowInsecure bool
	// Timeout bounds each request including reading its answer. 0: 5 s.
	Timeout time.Duration
	// MaxBody caps how much of an answer is read. 0: 1 MiB.
	MaxBody int64
	// HTTPClient is used for the requests; its CheckRedirect is replaced so
	// redirects are never followed. nil: a client of our own.
	HTTPClient *http.Client
	// ClientName and ClientVersion fill clientInfo in a modern request's
	// _meta when the caller did not. "": "mcp-watchdog" and "dev".
	ClientName    string
	ClientVersion string
}

// Client sends MCP requests to one endpoint. It is safe for concurrent use.
type Client struct {
	url     string
	headers http.Header
	timeout time.Duration
	maxBody int64
	hc      *http.Client
	name    string
	version string
	secrets []string // header values to hide where a server echoes them
	nextID  atomic.Uint64
}

// reserved are headers the client owns; letting config override them would
// break the protocol or smuggle a session id.
var reserved = []string{"Accept", "Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Host"}

// New checks the options and builds a Client. It makes no connection.
func New(opts Options) (*Client, error) {
	u, err := checkURL(opts.URL, opts.AllowInsecure)
	if err != nil {
		return nil, err
	}
	h := make(http.Header, len(opts.Headers))
	for k, v := range opts.Headers {
		ck := http.CanonicalHeaderKey(k)
		for _, r := range reserved {
			if ck == r {
				return nil, fmt.Errorf("%w: %s", ErrReservedHeader, ck)
			}
		}
		h.Set(ck, v)
	}
	c := &Client{
		url:     u.String(),
		headers: h,
		timeout: positive(opts.Timeout, DefaultTimeout),
		maxBody: positive(opts.MaxBody, DefaultMaxBody),
		hc:      noRedirects(opts.HTTPClient),
		name:    orDefault(opts.ClientName, DefaultClientName),
		version: orDefault(opts.ClientVersion, DefaultClientVersion),
		secrets: secretsOf(opts.Headers),
	}
	return c, nil
}

// URL is the endpoint this client talks to.
func (c *Client) URL() string { return c.url }

// ClientVersion is the version this client reports in clientInfo.
func (c *Client) ClientVersion() string { return c.version }

// checkURL never quotes raw whole: it may carry a query token or a
// password (mask.URL).
func checkURL(raw string, allowInsecure bool) (*url.URL, error) {
	u, err := mask.ParseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Hostname() == "" {
		return nil, fmt.Errorf("%w: %s is not an absolute http(s) URL", ErrInvalidURL, mask.URL(raw))
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: credentials in the URL would end up in logs; use headers", ErrInvalidURL)
	}
	if u.Scheme == "http" && !proxyurl.IsLoopback(u.Hostname()) && !allowInsecure {
		return nil, fmt.Errorf("%s: %w", u.Hostname(), ErrInsecure)
	}
	return u, nil
}

// noRedirects returns a copy of hc (or a new client) that hands back 3xx
// answers instead of following them: a session id must not reach another
// origin.
func noRedirects(hc *http.Client) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	} else {
		c.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

func positive[T ~int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
