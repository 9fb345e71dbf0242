package loadgen

import (
	"context"
	"testing"
	"time"
)

// The instrument itself: against each real server, sessions open, calls
// are answered with their echo, latencies are kept, and the sessions keep
// their connections rather than opening one per call (the bench counts the
// proxy's connections upstream). net/http puts a connection back in its
// pool after the answer's end is read, on a goroutine of its own: a call
// sent in that instant may dial once more, so a few connections per
// session (at most three: opening and calling) is the instrument working,
// not one per call (hundreds).
func TestLoadOnEachServer(t *testing.T) {
	for _, name := range []string{"go-sdk", "mcp-go"} {
		t.Run(name, func(t *testing.T) {
			const c = 3
			srv, ss := startAndOpen(t, name, c)
			opened := srv.Accepted()
			r, err := ss.Run(t.Context(), 300*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if r.Calls < c || len(r.Latencies) != r.Calls || r.Quantile(0.5) <= 0 {
				t.Errorf("%d calls, %d latencies, p50 %s: want at least one call per session, each timed", r.Calls, len(r.Latencies), r.Quantile(0.5))
			}
			if all := srv.Accepted(); all > 3*c {
				t.Errorf("the server accepted %d connections opening %d sessions and %d more over %d calls: want the connections kept",
					opened, c, all-opened, r.Calls)
			}
		})
	}
}

func TestStartRefusesAnUnknownServer(t *testing.T) {
	if _, err := Start(t.Context(), "nginx"); err == nil {
		t.Fatal("Start(nginx): no error")
	}
}

// A run ends without cutting the calls under way: cut, each would close
// its session's connection at the end of every window, and the next
// window would pay for the reconnects (64 of them a window at 64 sessions,
// on every path the bench compares). Ten runs back to back open no more
// connections than one session's race with the pool can explain.
func TestRunsEndWithoutCuttingCalls(t *testing.T) {
	const c = 8
	srv, ss := startAndOpen(t, "mcp-go", c)
	if _, err := ss.Run(t.Context(), 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	warm := srv.Accepted()
	calls := 0
	for range 10 {
		r, err := ss.Run(t.Context(), 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if r.Elapsed != 50*time.Millisecond || r.Calls != len(r.Latencies) {
			t.Fatalf("elapsed %s, %d calls, %d latencies: want the window's own length and every counted call timed", r.Elapsed, r.Calls, len(r.Latencies))
		}
		calls += r.Calls
	}
	if extra := srv.Accepted() - warm; extra > c {
		t.Errorf("the server accepted %d more connections over 10 runs (%d calls, %d sessions): want the runs' ends to cut no call", extra, calls, c)
	}
}

// startAndOpen starts the server of that name and opens c sessions on it,
// each with its own kept connection; both end with the test.
func startAndOpen(t *testing.T, name string, c int) (*Server, *Sessions) {
	t.Helper()
	srv, err := Start(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	ss, err := Open(t.Context(), Client(c), srv.URL(), c, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close(context.Background()) })
	return srv, ss
}
