package demoserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const testIdle = 2 * time.Second

func TestIdleSessionExpires(t *testing.T) {
	t.Parallel()
	s := startTest(t, Options{IdleTimeout: testIdle})
	cs := connect(t, s.URL(), "dsh-mcp-client")
	if got, err := callEcho(t.Context(), cs, "hello"); err != nil || got != "hello" {
		t.Fatalf("echo = %q, %v; want hello", got, err)
	}
	id := cs.ID()
	if id == "" {
		t.Fatal("stateful server issued no session id")
	}
	if got := s.SessionIDs(); !slices.Equal(got, []string{id}) {
		t.Fatalf("SessionIDs = %d ids, want the client's one", len(got))
	}
	waitFor(t, "session in store", func() bool {
		doc := readStore(t, s.store)
		return len(doc.Sessions) == 1 && doc.Sessions[0].ID == id && doc.Sessions[0].ClientName == "dsh-mcp-client"
	})

	waitFor(t, "session gone from store", func() bool { return len(storeIDs(t, s.store)) == 0 })
	ended, ok := findEnded(s.Ended(), id)
	if !ok {
		t.Fatal("Ended does not list the expired session")
	}
	if ended.Reason != ReasonIdleTimeout || ended.Client != "dsh-mcp-client" {
		t.Errorf("ended = reason %q client %q, want idle_timeout dsh-mcp-client", ended.Reason, ended.Client)
	}
	// The SDK's timer starts when the last POST ends, so the idle time at
	// the end can only be shorter than the timeout by scheduling noise.
	if ended.Idle < testIdle-100*time.Millisecond {
		t.Errorf("idle at end = %v, want about %v", ended.Idle, testIdle)
	}
	if len(s.SessionIDs()) != 0 {
		t.Error("SessionIDs still lists the expired session")
	}
	waitFor(t, "closed line", logHas(t, s.log, msgClosed+" session_id="+id+" reason=idle_timeout"))

	_, err := callEcho(t.Context(), cs, "too late")
	if err == nil {
		t.Fatal("call on an expired session succeeded")
	}
	if !errors.Is(err, mcp.ErrSessionMissing) && !strings.Contains(err.Error(), "session not found") {
		t.Errorf("call error = %v, want session not found", err)
	}
	waitFor(t, "not-found line", logHas(t, s.log, "WARN "+msgNotFound+" session_id="+id))

	log := readLog(t, s.log)
	for _, want := range []string{
		" INFO " + msgConfigured + " seconds=2 store_path=" + s.store + "\n",
		" INFO " + msgCreated + " session_id=" + id + " client=dsh-mcp-client\n",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

func TestActiveSessionSurvives(t *testing.T) {
	t.Parallel()
	s := startTest(t, Options{IdleTimeout: testIdle})
	cs := connect(t, s.URL(), "busy")
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	var last int64
	for time.Since(start) < 4*time.Second {
		<-tick.C
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "count"})
		if err != nil {
			t.Fatalf("count after %v: %v", time.Since(start), err)
		}
		n, err := strconv.ParseInt(resultText(res), 10, 64)
		if err != nil || n != last+1 {
			t.Fatalf("count = %q, want %d", resultText(res), last+1)
		}
		last = n
	}
	if s.Count() != last {
		t.Errorf("Count() = %d, want %d", s.Count(), last)
	}
	if got := s.SessionIDs(); !slices.Equal(got, []string{cs.ID()}) {
		t.Errorf("session not live after 4 s of calls")
	}
	if len(s.Ended()) != 0 {
		t.Errorf("Ended = %+v, want none", s.Ended())
	}
	doc := readStore(t, s.store)
	if len(doc.Sessions) != 1 {
		t.Fatalf("store has %d sessions, want 1", len(doc.Sessions))
	}
	created, err1 := time.Parse(time.RFC3339Nano, doc.Sessions[0].CreatedAt)
	active, err2 := time.Parse(time.RFC3339Nano, doc.Sessions[0].LastActivity)
	if err1 != nil || err2 != nil || !active.After(created) {
		t.Errorf("store times created=%q last=%q: want RFC 3339, activity after creation",
			doc.Sessions[0].CreatedAt, doc.Sessions[0].LastActivity)
	}
}

func TestForgetAll(t *testing.T) {
	t.Parallel()
	s := startTest(t, Options{})
	a := connect(t, s.URL(), "a")
	b := connect(t, s.URL(), "b")
	waitFor(t, "two sessions in store", func() bool { return len(storeIDs(t, s.store)) == 2 })

	s.ForgetAll()
	if ids := storeIDs(t, s.store); len(ids) != 0 {
		t.Fatalf("store after ForgetAll has %d sessions", len(ids))
	}
	if len(s.SessionIDs()) != 0 {
		t.Fatal("SessionIDs not empty after ForgetAll")
	}
	for _, id := range []string{a.ID(), b.ID()} {
		e, ok := findEnded(s.Ended(), id)
		if !ok || e.Reason != ReasonShutdown {
			t.Errorf("ended %v %q, want shutdown", ok, e.Reason)
		}
		resp := rawPost(t, s.URL(), id, pingBody)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "session not found") {
			t.Errorf("old session got %d %q, want 404 session not found", resp.StatusCode, body)
		}
		waitFor(t, "not-found line", logHas(t, s.log, msgNotFound+" session_id="+id))
		if !strings.Contains(readLog(t, s.log), msgClosed+" session_id="+id+" reason=shutdown") {
			t.Error("log lacks the shutdown close line")
		}
	}
	if n := strings.Count(readLog(t, s.log), msgConfigured); n != 2 {
		t.Errorf("start-up line logged %d times, want 2 (start and simulated restart)", n)
	}
	c := connect(t, s.URL(), "after")
	if _, err := callEcho(t.Context(), c, "x"); err != nil {
		t.Fatalf("new session after ForgetAll: %v", err)
	}
	waitFor(t, "new session in store", func() bool { return slices.Equal(storeIDs(t, s.store), []string{c.ID()}) })
}

func TestDeleteEndsSession(t *testing.T) {
	t.Parallel()
	s := startTest(t, Options{IdleTimeout: time.Hour})
	cs := connect(t, s.URL(), "polite")
	id := cs.ID()
	waitFor(t, "session in store", func() bool { return len(storeIDs(t, s.store)) == 1 })
	if err := cs.Close(); err != nil {
		t.Fatalf("client Close: %v", err)
	}
	waitFor(t, "session ended", func() bool { _, ok := findEnded(s.Ended(), id); return ok })
	if e, _ := findEnded(s.Ended(), id); e.Reason != ReasonDeleted {
		t.Errorf("reason = %q, want deleted", e.Reason)
	}
	waitFor(t, "store empty", func() bool { return len(storeIDs(t, s.store)) == 0 })
	waitFor(t, "closed line", logHas(t, s.log, msgClosed+" session_id="+id+" reason=deleted"))
}

func TestCloseEndsSessions(t *testing.T) {
	t.Parallel()
	s := startTest(t, Options{})
	cs := connect(t, s.URL(), "left-open")
	id := cs.ID()
	waitFor(t, "session in store", func() bool { return len(storeIDs(t, s.store)) == 1 })
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if e, ok := findEnded(s.Ended(), id); !ok || e.Reason != ReasonShutdown {
		t.Errorf("ended %v %q, want shutdown", ok, e.Reason)
	}
	if ids := storeIDs(t, s.store); len(ids) != 0 {
		t.Errorf("store after Close has %d sessions", len(ids))
	}
	if !strings.Contains(readLog(t, s.log), msgClosed+" session_id="+id+" reason=shutdown") {
		t.Error("log lacks the shutdown close line")
	}
	if _, err := http.Get(s.URL()); err == nil {
		t.Error("server still answers after Close")
	}
}

func TestStopsWhenContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	s, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	waitFor(t, "server down", func() bool {
		resp, err := http.Get(s.URL())
		if err == nil {
			_ = resp.Body.Close()
		}
		return err != nil
	})
	if err := s.Close(); err != nil {
		t.Errorf("Close after context end: %v", err)
	}
}

func TestStateless(t *testing.T) {
	t.Parallel()
	s := startTest(t, Options{Stateless: true, IdleTimeout: testIdle})
	cs := connect(t, s.URL(), "modern")
	if got, err := callEcho(t.Context(), cs, "hi"); err != nil || got != "hi" {
		t.Fatalf("echo = %q, %v", got, err)
	}
	if cs.ID() != "" {
		t.Error("stateless server issued a session id")
	}
	resp := rawPost(t, s.URL(), "", initializeBody)
	if resp.StatusCode != http.StatusOK || resp.Header.Get(sessionHeader) != "" {
		t.Errorf("initialize: status %d, session header present %v", resp.StatusCode, resp.Header.Get(sessionHeader) != "")
	}
	if ids := storeIDs(t, s.store); len(ids) != 0 {
		t.Errorf("stateless store lists %d sessions", len(ids))
	}
	if len(s.SessionIDs()) != 0 || len(s.Ended()) != 0 {
		t.Error("stateless server tracked sessions")
	}
	if strings.Contains(readLog(t, s.log), msgCreated) {
		t.Error("stateless server logged a session")
	}
}

func TestUnknownSessionLogged(t *testing.T) {
	t.Parallel()
	s := startTest(t, Options{})
	const id = "NEVERISSUED0123456789"
	resp := rawPost(t, s.URL(), id, pingBody)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("status %d, want 404", resp.StatusCode)
	}
	waitFor(t, "warn line", logHas(t, s.log, " WARN "+msgNotFound+" session_id="+id+"\n"))
}

func TestStartFails(t *testing.T) {
	t.Parallel()
	missing := t.TempDir() + "/missing/dir"
	tests := []struct {
		name string
		opts Options
	}{
		{"store in a missing directory", Options{StorePath: missing + "/mcp-sessions.json"}},
		{"log in a missing directory", Options{LogPath: missing + "/server.log"}},
		{"negative idle timeout", Options{IdleTimeout: -time.Second}},
		{"bad address", Options{Addr: "127.0.0.1:-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Start(t.Context(), tt.opts)
			if err == nil {
				_ = s.Close()
				t.Fatal("Start succeeded")
			}
		})
	}
}
