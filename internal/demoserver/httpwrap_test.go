package demoserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestEndedSessionAnswers404 covers the SDK's window: its session's Wait
// returns (the end is logged, the watchdog journals the loss) a moment
// before its handler forgets the id, and a call in that moment got a 200
// stream that closed without an answer ("request terminated without
// response"). Once the server has said a session ended, it answers that
// id 404, as the SDK does a moment later.
func TestEndedSessionAnswers404(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	s := &Server{tracker: newTracker(clk.now, 2*time.Second, func() {})}
	stillKnown := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	h := s.observe(stillKnown)
	post := func(id string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set(sessionHeader, id)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	s.tracker.add("s1", "c")
	if rec := post("s1"); rec.Code != http.StatusOK {
		t.Fatalf("live session: %d", rec.Code)
	}
	s.tracker.end("s1")
	rec := post("s1")
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "session not found") {
		t.Fatalf("ended session: %d %q, want 404 session not found", rec.Code, rec.Body.String())
	}
	if rec := post("s2"); rec.Code != http.StatusOK {
		t.Fatalf("a session the server never ended is the SDK's to answer: %d", rec.Code)
	}
}
