package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// classifyCap is how much of a 4xx answer is read to tell a lost session
// from any other refusal.
const classifyCap = 64 << 10

// hopByHop are headers of one connection (RFC 9110 7.6.1), never forwarded.
// Accept-Encoding goes too: the transport then asks for gzip itself and
// hands back plain bytes, which the proxy can read to classify.
var hopByHop = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length", "Accept-Encoding"}

// copyHeaders copies src to dst without the hop-by-hop headers, those the
// Connection header names, and the session id (the caller sets its own).
func copyHeaders(dst, src http.Header) {
	var named map[string]bool // nil (no allocation) without a Connection header
	for _, v := range src.Values("Connection") {
		if named == nil {
			named = map[string]bool{}
		}
		for f := range strings.SplitSeq(v, ",") {
			named[http.CanonicalHeaderKey(strings.TrimSpace(f))] = true
		}
	}
	for k, vs := range src {
		ck := http.CanonicalHeaderKey(k)
		if named[ck] || ck == mcphttp.HeaderSessionID || isHopByHop(ck) {
			continue
		}
		dst[ck] = append([]string(nil), vs...)
	}
}

func isHopByHop(k string) bool {
	for _, h := range hopByHop {
		if h == k {
			return true
		}
	}
	return false
}

// send makes the upstream request for the host's request r: its method
// and headers, body, and the upstream session id (none when "").
func (p *Proxy) send(ctx context.Context, r *http.Request, body []byte, upstream string) (*http.Response, error) {
	resp, err := p.deliver(ctx, r, body, upstream)
	if errors.Is(err, errNoAnswer) {
		return nil, err
	}
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		p.sawUnauthorized(resp.Header)
	}
	if err == nil && resp.StatusCode >= 300 && resp.StatusCode < 400 {
		resp.Body.Close()
		return nil, redirected(resp.StatusCode)
	}
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = mask.URL(ue.URL) // it may carry a token
		}
		return nil, fmt.Errorf("%w: %w", errUnreachable, err)
	}
	return resp, nil
}

// deliver makes the upstream request; one that failed on a kept
// connection before all of it was written goes once more (deadconn.go).
func (p *Proxy) deliver(ctx context.Context, r *http.Request, body []byte, upstream string) (*http.Response, error) {
	for again := false; ; again = true {
		var k keptTrace
		req, err := p.upstreamRequest(k.context(ctx), r, body, upstream)
		if err != nil {
			return nil, err
		}
		resp, err := p.doWithin(req, p.opts.AnswerTimeout)
		if err == nil || again || !k.unsent() || errors.Is(err, errNoAnswer) || ctx.Err() != nil {
			return resp, err
		}
	}
}

// upstreamRequest is the request send makes.
func (p *Proxy) upstreamRequest(ctx context.Context, r *http.Request, body []byte, upstream string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, r.Method, p.opts.Upstream, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body == nil {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	copyHeaders(req.Header, r.Header)
	for k, v := range p.opts.Headers {
		if req.Header.Get(k) == "" {
			req.Header.Set(k, v)
		}
	}
	if upstream != "" {
		req.Header.Set(mcphttp.HeaderSessionID, upstream)
	}
	return req, nil
}

// errUnreachable: the request got no answer because no connection to the
// server carried it (refused, reset, closed before an answer).
var errUnreachable = errors.New("the server could not be reached")

// answer is an upstream answer the proxy may have read the start of.
type answer struct {
	resp *http.Response
	head []byte // read already, to classify; the rest is still in resp.Body
}

// verdict classifies a POST answer. Only an answer that may say the
// session is lost is read (mcphttp.MayMeanLost: at most classifyCap); the
// rest, event streams included, stream on untouched.
func (p *Proxy) verdict(resp *http.Response) (answer, mcphttp.Verdict) {
	a := answer{resp: resp}
	// What net/http holds of the body is not told: a body of known length
	// counts as at hand (this path is not the common call's).
	if !mcphttp.MayMeanLost(resp.StatusCode, resp.Header.Get("Content-Type"), resp.ContentLength, resp.ContentLength, classifyCap) {
		return a, mcphttp.Alive
	}
	a.head, _ = io.ReadAll(io.LimitReader(resp.Body, classifyCap))
	return a, mcphttp.JudgeRead(resp.StatusCode, resp.Header, a.head).Verdict
}

// relay writes an upstream answer to the host as it comes: headers (the
// session id as the host knows it), status, then the body, flushed after
// every read so SSE events reach the host at once. At most limit bytes.
func (p *Proxy) relay(w http.ResponseWriter, a answer, hostID string, limit int64) {
	defer a.resp.Body.Close()
	copyHeaders(w.Header(), a.resp.Header)
	if hostID != "" && a.resp.Header.Get(mcphttp.HeaderSessionID) != "" {
		w.Header().Set(mcphttp.HeaderSessionID, hostID)
	}
	// An answer of known length that is not an event stream goes out as
	// it came, unflushed: one write with its length, where flushing after
	// each read made it chunked and cost a second write for its end.
	streamed := a.resp.ContentLength < 0 || isEventStream(a.resp.Header)
	if !streamed && a.resp.ContentLength > 0 && a.resp.ContentLength <= limit {
		w.Header().Set("Content-Length", strconv.FormatInt(a.resp.ContentLength, 10))
	}
	w.WriteHeader(a.resp.StatusCode)
	rc := http.NewResponseController(w)
	if len(a.head) > 0 {
		_, _ = w.Write(a.head)
	}
	if a.resp.ContentLength >= 0 && a.resp.ContentLength <= int64(len(a.head)) {
		return // no body, or read whole already (an initialize's): no buffer needed
	}
	body := io.LimitReader(a.resp.Body, limit-int64(len(a.head))+1)
	bp := relayBufs.Get().(*[]byte)
	defer relayBufs.Put(bp)
	buf := *bp
	sent := int64(len(a.head))
	for {
		n, err := body.Read(buf)
		if n > 0 {
			sent += int64(n)
			if sent > limit {
				p.log.Warn(answerCut, "limit", limit)
				return
			}
			if _, werr := w.Write(buf[:n]); werr != nil {
				return // the host went away
			}
			if streamed && err == nil { // the last read's bytes go out with the end, in one write
				_ = rc.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

// isEventStream reports whether h says the body is an SSE stream.
func isEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}

// relayBufs are relay's buffers, one per answer under way: made per
// answer, they were most of what the proxy allocated per call, as
// httputil.ReverseProxy found before (its BufferPool).
var relayBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// rpcError answers the host with a JSON-RPC error of the proxy's own.
func rpcError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(rpcErrorBody(code, msg))
}

// rpcErrorBody is the body of the proxy's own JSON-RPC error answers.
func rpcErrorBody(code int, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": msg}})
	return append(b, '\n')
}

// badGateway answers a call the server could not take: 504 when it took
// the call and did not answer in time, 502 otherwise.
func badGateway(w http.ResponseWriter, err error) {
	rpcError(w, gatewayStatus(err), -32603, "watchdog proxy: "+err.Error())
}

func gatewayStatus(err error) int {
	if errors.Is(err, errNoAnswer) {
		return http.StatusGatewayTimeout
	}
	return http.StatusBadGateway
}

// readBody reads a host's request body, at most max bytes.
func readBody(r *http.Request, max int64) ([]byte, error) {
	if r.ContentLength > max { // refused before a byte of it is read
		return nil, fmt.Errorf("the request is larger than the proxy's limit of %d bytes", max)
	}
	if r.ContentLength > 0 { // the usual case: read into one exact buffer
		b := make([]byte, r.ContentLength)
		if _, err := io.ReadFull(r.Body, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("the request is larger than the proxy's limit of %d bytes", max)
	}
	return b, nil
}
