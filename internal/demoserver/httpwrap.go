package demoserver

import (
	"net/http"
)

// sessionHeader is the Streamable HTTP session header.
const sessionHeader = "Mcp-Session-Id"

// statusRecorder remembers the status code written through it. Unwrap lets
// http.ResponseController reach the real writer's Flush, which the SDK
// needs for SSE.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// observe wraps the SDK handler: it refuses requests once the server is
// closing, feeds POST activity and DELETEs to the tracker, and logs every
// 404 on a request that carried a session id, as the real server does.
//
// A session the server has said ended is answered 404 here, in the SDK's
// words: the SDK's session is closed (its Wait returns, and the end is
// logged) a moment before its handler forgets the id, and a call in that
// moment got a stream that closed without an answer.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.closing.Load() {
			http.Error(w, "server shutting down", http.StatusServiceUnavailable)
			return
		}
		id := r.Header.Get(sessionHeader)
		if id == "" {
			next.ServeHTTP(w, r)
			return
		}
		if s.tracker.over(id) {
			http.Error(w, "session not found", http.StatusNotFound)
			s.log.warn(msgNotFound, "session_id", id)
			return
		}
		switch r.Method {
		case http.MethodPost:
			if s.tracker.begin(id) {
				defer s.tracker.finish(id)
			}
		case http.MethodDelete:
			s.tracker.mark(id, ReasonDeleted)
		}
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		switch {
		case rec.status == http.StatusNotFound:
			s.log.warn(msgNotFound, "session_id", id)
		case r.Method == http.MethodDelete && rec.status < 300:
			// The SDK has closed it; record the end now rather than when the
			// Wait goroutine gets round to it.
			s.endSession(id)
		}
	})
}
