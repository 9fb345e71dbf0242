package loadgen

import (
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
			srv, err := Start(t.Context(), name)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			const c = 3
			ss, err := Open(t.Context(), Client(c), srv.URL(), c, c)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close(t.Context())
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
