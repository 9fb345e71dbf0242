package tsserver

import (
	"net/http"
	"testing"
	"time"
)

// TestIdleSweeperEndsSession: a session left alone past the idle timeout is closed,
// logged as idle and no longer listed; its id then gets the mode's unknown answer.
func TestIdleSweeperEndsSession(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode   Mode
		status int
	}{
		{Stateful, http.StatusNotFound},
		{Quirk, http.StatusBadRequest},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			t.Parallel()
			s := Start(t, Options{Mode: tc.mode, IdleTimeout: 300 * time.Millisecond})
			id := initSession(t, s)
			if reason := s.WaitEnded(t, id); reason != "idle" {
				t.Fatalf("end reason %q, want idle", reason)
			}
			if hasSession(t, s, id) {
				t.Fatal("Sessions() still lists the idle session")
			}
			if a := ping(t, s, id); a.status != tc.status {
				t.Fatalf("ping after idle end: HTTP %d body %q, want %d", a.status, a.body, tc.status)
			}
		})
	}
}

// TestIdleSweeperSparesActiveSession: requests well inside the idle timeout keep a session
// alive past several timeouts, while an idle sibling on the same server ends.
func TestIdleSweeperSparesActiveSession(t *testing.T) {
	t.Parallel()
	const idle = 2 * time.Second
	s := Start(t, Options{Mode: Stateful, IdleTimeout: idle})
	active := initSession(t, s)
	idleID := initSession(t, s)
	// Keep pinging until the idle sibling has ended and then for one more timeout.
	until := time.Time{}
	for until.IsZero() || time.Now().Before(until) {
		if a := ping(t, s, active); a.status != http.StatusOK {
			t.Fatalf("ping on active session: HTTP %d body %q", a.status, a.body)
		}
		if until.IsZero() && len(s.Ended()) > 0 {
			until = time.Now().Add(idle)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if reason := s.WaitEnded(t, idleID); reason != "idle" {
		t.Fatalf("idle sibling ended %q, want idle", reason)
	}
	if !hasSession(t, s, active) {
		t.Fatalf("active session was dropped; ended: %q", s.Ended())
	}
}

// TestStopAndRestartOnSamePort: Stop makes the URL refuse connections; a new server on
// the same port serves again, without the old sessions (a restart).
func TestStopAndRestartOnSamePort(t *testing.T) {
	t.Parallel()
	s := Start(t, Options{Mode: Stateful})
	id := initSession(t, s)
	s.Stop()
	s.Stop() // idempotent
	if _, err := http.Get(s.URL()); err == nil {
		t.Fatal("stopped server still answers")
	}
	port := portOf(t, s.URL())
	s2 := Start(t, Options{Mode: Stateful, Port: port})
	if s2.URL() != s.URL() {
		t.Fatalf("restarted URL %q, want %q", s2.URL(), s.URL())
	}
	if a := ping(t, s2, id); a.status != http.StatusNotFound || a.rpcCode != -32001 {
		t.Fatalf("old session after restart: HTTP %d body %q, want 404 -32001", a.status, a.body)
	}
}

// TestStaleIDDuringRestartGets404: a client calling with its old id while the restarted
// server is still starting (listening, its sentinel not yet initialized) gets the SDK's
// 404, never a 500 (the soak's reconnecting clients hit that window; it is held open
// here so the test hits it on a loaded machine too).
func TestStaleIDDuringRestartGets404(t *testing.T) {
	t.Parallel()
	s := Start(t, Options{Mode: Stateful})
	id := initSession(t, s)
	s.Stop()
	url := s.URL()
	done := make(chan *Server, 1)
	opts := Options{Mode: Stateful, Port: portOf(t, url), sentinelDelay: 500 * time.Millisecond}
	go func() {
		s2, err := Launch(opts)
		if err != nil {
			t.Error(err)
		} else {
			t.Cleanup(s2.Stop)
		}
		done <- s2
	}()
	var statuses []int
	for len(done) == 0 {
		if a, err := send(http.MethodPost, url, id, pingBody); err == nil {
			statuses = append(statuses, a.status)
		}
		time.Sleep(time.Millisecond)
	}
	if <-done == nil {
		return
	}
	if len(statuses) == 0 {
		t.Fatal("no request reached the server before it said LISTENING: the window this test is about was missed")
	}
	t.Logf("answers while starting: %v", statuses)
	for i, code := range statuses {
		if code != http.StatusNotFound {
			t.Fatalf("answer %d of %d while starting: HTTP %d, want 404 (all: %v)", i+1, len(statuses), code, statuses)
		}
	}
}
