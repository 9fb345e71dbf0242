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
	mu sync.Mutex
	w  http.ResponseWriter
	rc *http.ResponseController
}

// write sends one whole SSE event and flushes it.
func (st *stream) write(event []byte) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, err := st.w.Write(event); err != nil {
		return err
	}
	return st.rc.Flush()
}

// notify sends the proxy's own notifications.
func (st *stream) notify(methods []string) {
	for _, m := range methods {
		data, _ := json.Marshal(map[string]string{"jsonrpc": "2.0", "method": m})
		_ = st.write(append(append([]byte("event: message\ndata: "), data...), '\n', '\n'))
	}
}

// get forwards the host's GET stream on its session's upstream session.
// A 404 there is only a hint (some servers answer GET with 404 on a live
// session): a ping confirms the loss before a new session is opened.
func (p *Proxy) get(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	s := p.sessionOrPass(w, r)
	if s == nil {
		return
	}
	up, lost := p.current(s)
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
	resp, err := p.send(r.Context(), r, nil, up)
	if err == nil && resp.StatusCode == http.StatusNotFound && p.confirmLost(r.Context(), s, up) {
		resp.Body.Close()
		var next string
		if next, err = p.replace(r.Context(), s, up, r.Header); err == nil {
			p.recovered(s, up, next, began, "the server had lost the session; the proxy opened a new one when the host's event stream reconnected")
			resp, err = p.send(r.Context(), r, nil, next)
		}
	}
	if err != nil {
		badGateway(w, err)
		return
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		p.relay(w, answer{resp: resp}, s.hostID, p.opts.MaxAnswer)
		return
	}
	p.stream(w, resp, s)
}

// confirmLost pings the upstream session: only a POST's answer says a
// session is lost.
func (p *Proxy) confirmLost(ctx context.Context, s *session, up string) bool {
	_, protocol := p.headerAndProtocol(s)
	resp, err := p.pingClient(s).Ping(ctx, up, protocol)
	return mcphttp.Classify(resp, err).Verdict == mcphttp.Lost
}

// stream relays the server's SSE events to the host one whole event at a
// time, with any notifications the proxy owes the host first.
func (p *Proxy) stream(w http.ResponseWriter, resp *http.Response, s *session) {
	defer resp.Body.Close()
	copyHeaders(w.Header(), resp.Header)
	w.Header().Set(mcphttp.HeaderSessionID, s.hostID)
	w.WriteHeader(http.StatusOK)
	st := &stream{w: w, rc: http.NewResponseController(w)}
	_ = st.rc.Flush()
	var owed []string
	p.sessions.with(func() {
		s.streams = append(s.streams, st)
		owed, s.pending = s.pending, nil
	})
	defer p.sessions.with(func() {
		s.streams = slices.DeleteFunc(s.streams, func(x *stream) bool { return x == st })
		s.last = p.opts.Now() // the host was here until now
	})
	st.notify(owed)
	br := bufio.NewReader(resp.Body)
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
