package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// stream is a host's open GET stream. The relay writes the server's events
// to it whole, and the proxy its own between them.
type stream struct {
	mu    sync.Mutex
	w     http.ResponseWriter
	rc    *http.ResponseController
	ended bool // the handler is returning: w is no longer ours
}

// errStreamEnded: the host's stream ended; nothing more goes on it.
var errStreamEnded = errors.New("the host's stream has ended")

// write sends one whole SSE event and flushes it, unless the stream ended:
// another request's goroutine (tellLists after a replace) may hold it
// after its handler returned, and a ResponseWriter written then races
// with net/http reusing its buffer for another connection (found by
// -race under load, issue 31).
func (st *stream) write(event []byte) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ended {
		return errStreamEnded
	}
	if _, err := st.w.Write(event); err != nil {
		return err
	}
	return st.rc.Flush()
}

// end takes the stream from every writer, before its handler returns.
func (st *stream) end() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.ended = true
}

// notify sends the proxy's own notifications.
func (st *stream) notify(methods []string) {
	for _, m := range methods {
		data, _ := json.Marshal(map[string]string{"jsonrpc": "2.0", "method": m})
		_ = st.write(append(append([]byte("event: message\ndata: "), data...), '\n', '\n'))
	}
}

// get forwards the host's GET stream on its session's upstream session.
// A session-lost answer there (404, or the 400 quirk) is only a hint: some
// servers answer GET with 404 on a live session (the GET-404 hazard), so
// it never reaches the host as a loss before a ping (a POST) confirms it.
func (p *Proxy) get(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	s := p.sessionOrPass(w, r)
	if s == nil {
		return
	}
	up, lost, waiting := p.currentOrWaiting(s)
	if waiting { // answered from the last-known server: attach.go
		p.attachedStream(w, r, s)
		return
	}
	var err error
	if up == "" {
		if up, err = p.replace(r.Context(), s, "", r.Header); err != nil {
			badGateway(w, err)
			return
		}
		if lost != "" {
			p.recovered(s, lost, up, began, "the server had lost the session while the host was away; the proxy opened a new one when the host's event stream reconnected")
		}
	}
	a, err := p.getOn(r, s, up, began)
	if err != nil {
		badGateway(w, err)
		return
	}
	if mt, _, _ := mime.ParseMediaType(a.resp.Header.Get("Content-Type")); a.resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		p.relay(w, a, s.hostID, p.opts.MaxAnswer)
		return
	}
	p.stream(w, a.resp, s)
}

// getOn sends the host's GET on up. When the server refuses it as a lost
// session, the GET goes once more on the session that replaced up: the
// one a concurrent call opened meanwhile (the GET read up before that
// call's replace, and must not hand its refusal to the host, which would
// close: issue 31), or, once a ping has confirmed the loss, a new one.
// An unconfirmed refusal goes to the host as it came.
func (p *Proxy) getOn(r *http.Request, s *session, up string, began time.Time) (answer, error) {
	resp, err := p.sendGet(r, up)
	if err != nil {
		return answer{}, err
	}
	a, v := p.verdict(resp)
	if v != mcphttp.Lost {
		return a, nil
	}
	next, _ := p.current(s)
	if next == up && !p.confirmLost(r.Context(), s, up) {
		return a, nil
	}
	a.resp.Body.Close()
	if next == up || next == "" {
		if next, err = p.replace(r.Context(), s, up, r.Header); err != nil {
			return answer{}, err
		}
		p.recovered(s, up, next, began, "the server had lost the session; the proxy opened a new one when the host's event stream reconnected")
	}
	resp, err = p.sendGet(r, next)
	return answer{resp: resp}, err
}

// getRetryFor bounds how long a host's GET waits for a server it cannot
// reach; getBackoff is the first pause, doubling to getBackoffMax.
const (
	getRetryFor   = time.Minute
	getBackoff    = 50 * time.Millisecond
	getBackoffMax = 2 * time.Second
)

// sendGet sends the host's GET on up. A GET runs nothing on the server, so
// one that could not reach it (a restart under way) is sent again, backing
// off, until it does, the host goes away or getRetryFor passes: a Go SDK
// client closes on a 502 to its stream's reconnect (issue 31), and the
// stream's reconnect comes while the server restarts.
func (p *Proxy) sendGet(r *http.Request, up string) (*http.Response, error) {
	return p.sendAgainWhile(r, nil, up, backoff{getRetryFor, getBackoff, getBackoffMax},
		func(err error) bool { return errors.Is(err, errUnreachable) })
}

// confirmLost pings the upstream session: only a POST's answer says a
// session is lost.
func (p *Proxy) confirmLost(ctx context.Context, s *session, up string) bool {
	_, protocol := p.headerAndProtocol(s)
	resp, err := p.pingClient(s).Ping(ctx, up, protocol)
	return mcphttp.Judge(resp, err).Verdict == mcphttp.Lost
}

// stream relays the server's SSE events to the host one whole event at a
// time, with any notifications the proxy owes the host first.
func (p *Proxy) stream(w http.ResponseWriter, resp *http.Response, s *session) {
	defer resp.Body.Close()
	st, closeStream := p.openStream(w, s, func(h http.Header) { copyHeaders(h, resp.Header) })
	defer closeStream()
	p.pump(st, resp.Body)
}

// openStream answers a host's GET on session s with 200 and a stream of
// its own (head sets the answer's headers; the host's session id is
// added), and hands it the notifications the proxy owes the host. The
// stream is registered before the host hears 200, so the session cap
// never lets go of a session whose host holds a stream; st.mu keeps any
// other writer out until the headers are written. closeStream ends and
// unregisters it.
func (p *Proxy) openStream(w http.ResponseWriter, s *session, head func(http.Header)) (st *stream, closeStream func()) {
	st = &stream{w: w, rc: http.NewResponseController(w)}
	st.mu.Lock()
	var owed []string
	p.sessions.with(func() {
		s.streams = append(s.streams, st)
		owed, s.pending = s.pending, nil
	})
	head(w.Header())
	w.Header().Set(mcphttp.HeaderSessionID, s.hostID)
	w.WriteHeader(http.StatusOK)
	_ = st.rc.Flush()
	st.mu.Unlock()
	st.notify(owed)
	return st, func() {
		p.sessions.with(func() {
			s.streams = slices.DeleteFunc(s.streams, func(x *stream) bool { return x == st })
			s.last = p.opts.Now() // the host was here until now
		})
		st.end()
	}
}

// pump writes the server's events from body to the host's stream st,
// one whole event at a time, until either ends.
func (p *Proxy) pump(st *stream, body io.Reader) {
	br := bufio.NewReader(body)
	for {
		event, err := readEvent(br, p.opts.MaxAnswer)
		if len(event) > 0 && st.write(event) != nil {
			return
		}
		if err != nil {
			if errors.Is(err, errEventTooLarge) {
				p.log.Warn("an event on the server's stream exceeded the proxy's size limit; the stream is ended", "limit", p.opts.MaxAnswer)
			}
			return
		}
	}
}

var errEventTooLarge = errors.New("event too large")

// readEvent reads lines up to and including the blank line that ends an
// SSE event, at most max bytes.
func readEvent(br *bufio.Reader, max int64) ([]byte, error) {
	var ev []byte
	for {
		line, err := br.ReadSlice('\n')
		ev = append(ev, line...)
		if int64(len(ev)) > max {
			return nil, errEventTooLarge
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(ev) > 0 {
				return ev, io.EOF
			}
			return ev, err
		}
		if len(line) <= 2 && (string(line) == "\n" || string(line) == "\r\n") {
			return ev, nil
		}
	}
}

// tellLists tells the host, on its GET stream, to read its lists again
// after a new upstream session; without a stream open, on the next one.
func (p *Proxy) tellLists(s *session) {
	var open []*stream
	var notes []string
	p.sessions.with(func() {
		notes = s.caps.changed()
		if len(s.streams) == 0 {
			s.pending = notes
			return
		}
		open = slices.Clone(s.streams)
	})
	for _, st := range open {
		st.notify(notes)
	}
}
