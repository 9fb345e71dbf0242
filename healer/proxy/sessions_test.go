package proxy_test

import (
	"flag"
	"net/http"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// Past MaxSessions the least recently used session without a GET stream
// is let go upstream with DELETE (it was only forgotten, its upstream
// session left to the server's idle timeout or kept forever); one holding
// a stream stays however old; and the host of the one let go, should it
// come back, is served on a new upstream session.
func TestSessionCapLetsTheOldestIdleOneGo(t *testing.T) {
	onTransports(t, sessionCapLetsTheOldestIdleOneGo)
}

func sessionCapLetsTheOldestIdleOneGo(t *testing.T, tr transport) {
	srv := startServer(t, demoserver.Options{})
	px := tr.start(t, proxy.Options{Upstream: srv.URL(), MaxSessions: 3})
	streaming := rawSession(t, px.url)
	keepStream(t, getStream(t, px.url, streaming))
	oldest := rawSession(t, px.url)
	oldestUp := upstreamOf(t, px, oldest)
	third := rawSession(t, px.url)
	rawSession(t, px.url) // the fourth: one must go
	waitFor(t, "the DELETE of the oldest idle session", func() bool {
		return slices.ContainsFunc(srv.Ended(), func(e demoserver.EndedSession) bool {
			return e.ID == oldestUp && e.Reason == demoserver.ReasonDeleted
		})
	})
	if n := len(srv.Ended()); n != 1 {
		t.Errorf("the server ended %d sessions, want only the oldest idle one: %+v", n, srv.Ended())
	}
	for _, id := range []string{streaming, third, oldest} {
		if resp := callCount(t, px.url, id); resp.StatusCode != http.StatusOK {
			t.Errorf("a call after the cap: %d", resp.StatusCode)
		}
	}
	if n := len(px.of(proxy.EvReleased)); n < 1 {
		t.Error("no release told for the session let go")
	}
	tr.served(t, px)
}

// upstreamOf is the upstream session the proxy opened for host session
// id, as its own event says: the server's list is ordered by a creation
// time the server takes on its own, not by the proxy's order.
func upstreamOf(t *testing.T, px *running, id string) string {
	t.Helper()
	for _, ev := range px.of(proxy.EvSession) {
		if ev.HostSession == id && ev.Upstream != "" {
			return ev.Upstream
		}
	}
	t.Fatalf("no session event names the upstream of host session %s", id)
	return ""
}

var heldSessions = flag.Int("held-sessions", 10000, "BenchmarkHeldSessions: sessions held at once")

// BenchmarkHeldSessions: what a held idle host session costs the proxy.
// The same number of sessions is opened straight to the real Go SDK
// server and through the proxy, in this one process; the proxy's share is
// the difference (the server's sessions cost the same in both). The host
// side keeps only the ids. RSS is the whole process's growth while the
// proxied ones are held (server included; it runs second, so on memory
// the first run freed). go test -run '^$' -bench BenchmarkHeldSessions
// -benchtime=1x ./healer/proxy; -held-sessions to change the count.
func BenchmarkHeldSessions(b *testing.B) {
	n := *heldSessions
	for b.Loop() {
		direct := heldCost(b, n, false)
		through := heldCost(b, n, true)
		b.ReportMetric(direct.heap/float64(n), "server-B/session")
		b.ReportMetric((through.heap-direct.heap)/float64(n), "proxy-heap-B/session")
		b.ReportMetric(through.rss/float64(n), "process-rss-B/session")
	}
}

// heldCost opens n sessions on a fresh server, straight or through a
// proxy, and returns the growth of heap and RSS while they are all held.
func heldCost(b *testing.B, n int, proxied bool) struct{ heap, rss float64 } {
	srv, err := demoserver.Start(b.Context(), demoserver.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	u := srv.URL()
	var px *running
	if proxied {
		px = startProxy(b, proxy.Options{Upstream: u, MaxSessions: n})
		defer px.stop()
		u = px.url
	}
	before := measure(b)
	ids := make([]string, 0, n)
	for range n {
		ids = append(ids, rawSessionB(b, u))
	}
	after := measure(b)
	if len(srv.SessionIDs()) != n {
		b.Fatalf("the server holds %d sessions, want %d", len(srv.SessionIDs()), n)
	}
	var out struct{ heap, rss float64 }
	out.heap, out.rss = float64(after.heap)-float64(before.heap), float64(after.rss)-float64(before.rss)
	runtime.KeepAlive(ids)
	return out
}

// The upstream sessions the proxy ended itself are in its state file
// before the DELETE goes, so a daemon killed right after still tells the
// next one whose end it was (soak: a restarted daemon journaled such a
// session's end as an idle expiry).
func TestReleasedSessionsOutliveTheProxy(t *testing.T) {
	onTransports(t, releasedSessionsOutliveTheProxy)
}

func releasedSessionsOutliveTheProxy(t *testing.T, tr transport) {
	srv := startServer(t, demoserver.Options{IdleTimeout: time.Minute})
	state := filepath.Join(t.TempDir(), "proxy.json")
	px := tr.start(t, proxy.Options{Upstream: srv.URL(), IdleTimeout: 200 * time.Millisecond, KeepWarm: true, StateFile: state})
	rawSession(t, px.url)
	waitFor(t, "the release", func() bool { return len(px.of(proxy.EvReleased)) == 1 })
	up := px.of(proxy.EvReleased)[0].OldUpstream
	px.stop()
	again := tr.start(t, proxy.Options{Upstream: srv.URL(), StateFile: state})
	if got := again.Released(); !slices.Equal(got, []string{up}) {
		t.Fatalf("released after a restart: %v, want [%s]", got, up)
	}
	tr.served(t, px)
}
