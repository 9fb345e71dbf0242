package mcphttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// Header names and _meta keys of the MCP Streamable HTTP transport, as the Go
// SDK v1.8.0 spells them (streamable_headers.go, protocol.go).
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	HeaderMethod          = "Mcp-Method"

	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"

	// ModernVersion is the stateless protocol (SEP-2567, SEP-2575): no
	// sessions, no initialize, no ping; server/discover instead.
	ModernVersion = "2026-07-28"
)

// Request is one JSON-RPC message to POST.
type Request struct {
	// Method is the JSON-RPC method. A method under "notifications/" is sent
	// as a notification (no id); its answer is normally 202 with no body.
	Method string
	// Params are marshalled as JSON. nil: no params (for a modern request,
	// params holding only _meta).
	Params any
	// SessionID is sent as Mcp-Session-Id; "": no header.
	SessionID string
	// ProtocolVersion is sent as MCP-Protocol-Version; "": no header, unless
	// Modern, which defaults it to ModernVersion.
	ProtocolVersion string
	// Modern sends the 2026-07-28 shape: an Mcp-Method header and the
	// protocol version, client info and capabilities in params._meta (keys
	// the caller already set there are kept).
	Modern bool
}

// Response is what came back, whatever the status.
type Response struct {
	Status int
	Header http.Header
	// SessionID is the answer's Mcp-Session-Id header.
	SessionID string
	// RPC is the JSON-RPC response carrying our id, from a JSON body or the
	// first matching SSE event; nil when there was none.
	RPC *RPCMessage
	// Body is the raw bytes read, at most MaxBody: for answers that are not
	// JSON-RPC (plain text errors, HTML, 3xx pages) it is what there is.
	Body []byte
	// Took is the time from sending to the end of reading.
	Took time.Duration

	sentSession string   // to mask it where the server echoes it
	secrets     []string // the configured header values, likewise
}

// Do POSTs req and reads the answer. The error is non-nil only for transport
// failures (refused, timeout, reset, a body over MaxBody, a bad request
// value); every HTTP status, 3xx included, is a Response for [Judge].
func (c *Client) Do(ctx context.Context, req Request) (Response, error) {
	var id string
	if !strings.HasPrefix(req.Method, "notifications/") {
		id = "watchdog-" + strconv.FormatUint(c.nextID.Add(1), 10)
	}
	body, err := c.encode(req, id)
	if err != nil {
		return Response{}, err
	}
	h := c.baseHeader(req.SessionID, req.protocolVersion())
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Content-Type", "application/json")
	if req.Modern {
		h.Set(HeaderMethod, req.Method)
	}
	if safeToResend(req.Method) {
		markIdempotent(h)
	}
	return c.roundTrip(ctx, http.MethodPost, h, body, func(r io.Reader, ct string) (*RPCMessage, []byte, error) {
		return readAnswer(r, ct, id, c.maxBody)
	})
}

// safeToResend: the methods whose request changes nothing a second copy
// could harm: initialize opens a session nobody holds yet (a duplicate
// is an orphan the server's idle timeout ends), the rest only read. A
// tool call, or anything else, may have run: it is never sent twice.
func safeToResend(method string) bool {
	switch method {
	case "initialize", "notifications/initialized", "ping", "server/discover", "tools/list", "prompts/list", "resources/list":
		return true
	}
	return false
}

// markIdempotent lets net/http send the request again on a new connection
// when a kept-alive one was closed or reset before any answer came (a
// server's idle close racing the request). A nil value marks it without
// sending the header (net/http's Transport documents this).
func markIdempotent(h http.Header) { h["Idempotency-Key"] = nil }

// Ping sends a legacy ping on the session. A modern (2026-07-28) server has
// no ping: it answers 404 with JSON-RPC -32601, which [Judge] reports as
// Stateless, not as a lost session.
func (c *Client) Ping(ctx context.Context, sessionID, protocolVersion string) (Response, error) {
	return c.Do(ctx, Request{Method: "ping", SessionID: sessionID, ProtocolVersion: protocolVersion})
}

// Delete ends a session (spec: clients SHOULD send DELETE when done). A
// server that does not allow it answers 405.
func (c *Client) Delete(ctx context.Context, sessionID string) (Response, error) {
	return c.DeleteVersion(ctx, sessionID, "")
}

// DeleteVersion is Delete with an MCP-Protocol-Version header.
func (c *Client) DeleteVersion(ctx context.Context, sessionID, protocolVersion string) (Response, error) {
	h := c.baseHeader(sessionID, protocolVersion)
	markIdempotent(h)
	return c.roundTrip(ctx, http.MethodDelete, h, nil, c.readPlain)
}

// OpenStream opens the session's standalone GET stream and closes it at
// once: it tells only how the server answers (200 SSE, 405, or the 404
// quirk). Do not classify its answer with Judge: a 404 on GET is only a
// hint, never proof of a lost session.
func (c *Client) OpenStream(ctx context.Context, sessionID, protocolVersion string) (Response, error) {
	h := c.baseHeader(sessionID, protocolVersion)
	h.Set("Accept", "text/event-stream")
	return c.roundTrip(ctx, http.MethodGet, h, nil, func(r io.Reader, ct string) (*RPCMessage, []byte, error) {
		if isSSE(ct) {
			return nil, nil, nil // an open stream: its events are the host's business
		}
		return c.readPlain(r, ct)
	})
}

func (c *Client) readPlain(r io.Reader, ct string) (*RPCMessage, []byte, error) {
	return readAnswer(r, ct, "", c.maxBody)
}

func (r Request) protocolVersion() string {
	if r.ProtocolVersion == "" && r.Modern {
		return ModernVersion
	}
	return r.ProtocolVersion
}

func (c *Client) baseHeader(sessionID, protocolVersion string) http.Header {
	h := c.headers.Clone()
	if sessionID != "" {
		h.Set(HeaderSessionID, sessionID)
	}
	if protocolVersion != "" {
		h.Set(HeaderProtocolVersion, protocolVersion)
	}
	return h
}

type readFunc func(body io.Reader, contentType string) (*RPCMessage, []byte, error)

func (c *Client) roundTrip(ctx context.Context, method string, h http.Header, body []byte, read readFunc) (Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, method, c.url, bytes.NewReader(body))
	if err != nil {
		return Response{}, fmt.Errorf("mcphttp: %s: %w", method, err)
	}
	hreq.Header = h
	start := time.Now()
	hresp, err := c.hc.Do(hreq)
	if err != nil {
		return Response{Took: time.Since(start)}, fmt.Errorf("mcphttp: %s: %w", method, redactURLError(err))
	}
	defer hresp.Body.Close()
	resp := Response{
		Status:      hresp.StatusCode,
		Header:      hresp.Header,
		SessionID:   hresp.Header.Get(HeaderSessionID),
		sentSession: h.Get(HeaderSessionID),
		secrets:     c.secrets,
	}
	resp.RPC, resp.Body, err = read(hresp.Body, hresp.Header.Get("Content-Type"))
	resp.Took = time.Since(start)
	if err != nil {
		return resp, fmt.Errorf("mcphttp: %s: reading the %d answer: %w", method, hresp.StatusCode, err)
	}
	return resp, nil
}

// redactURLError hides what the endpoint URL may carry (a query token)
// in a transport error: net/http's *url.Error quotes the whole URL, and
// the error becomes a reason in the journal (server_down), status and
// probe output.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = mask.URL(ue.URL)
	}
	return err
}
