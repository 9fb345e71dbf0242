package proxy_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// The measurement of the issue: a session the server forgot (idle expiry,
// restart) strands a client that keeps the dead id; through the proxy the
// next call succeeds, the tool runs exactly once per call, and the proxy
// says what it saw.
func TestCallAfterLossSucceeds(t *testing.T) {
	const idle = 300 * time.Millisecond
	onTransports(t, func(t *testing.T, tr transport) { callAfterLoss(t, tr, idle) })
}

func callAfterLoss(t *testing.T, tr transport, idle time.Duration) {
	for _, tc := range []struct {
		name string
		lose func(*demoserver.Server)
	}{
		{"idle expiry", func(*demoserver.Server) { time.Sleep(3 * idle) }},
		{"server restart", func(s *demoserver.Server) { s.ForgetAll() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServer(t, demoserver.Options{IdleTimeout: idle})
			px := tr.start(t, proxy.Options{Upstream: srv.URL()})
			cs := connect(t, px.url)
			count(t, cs)
			first := srv.SessionIDs()
			tc.lose(srv)
			waitFor(t, "the server to forget the session", func() bool { return len(srv.SessionIDs()) == 0 })
			count(t, cs)
			count(t, cs)
			if got := srv.Count(); got != 3 {
				t.Errorf("the tool ran %d times for 3 calls", got)
			}
			rec := px.of(proxy.EvRecovered)
			if len(rec) != 1 {
				t.Fatalf("recoveries seen: %d, want 1 (%+v)", len(rec), px.events)
			}
			if rec[0].OldUpstream != first[0] || rec[0].Upstream == first[0] || rec[0].HostSession != cs.ID() {
				t.Errorf("recovery names old %q new %q host %q; want old %q, a new one, host %q",
					rec[0].OldUpstream, rec[0].Upstream, rec[0].HostSession, first[0], cs.ID())
			}
			if cs.ID() == first[0] {
				t.Error("the host holds the server's own session id; the proxy must give it one of its own")
			}
			// Every upstream session the proxy opens is named: the first by
			// EvSession, the replacement by EvUpstream.
			opened, ups := px.of(proxy.EvSession), px.of(proxy.EvUpstream)
			if len(opened) != 1 || opened[0].Upstream != first[0] || len(ups) != 1 || ups[0].Upstream != rec[0].Upstream {
				t.Errorf("sessions named %+v and upstreams %+v; want %s, then the recovery's", opened, ups, "the first")
			}
			tr.served(t, px)
		})
	}
}

// A daemon restart between two calls, the server forgetting its sessions
// meanwhile: the mapping and the host's initialize come back from the
// state file, and the next call succeeds. A state file that cannot be
// used is set aside, and the host is still served: its id is adopted on a
// new upstream session, not answered 404 (which strands most hosts).
func TestRestartBetweenCalls(t *testing.T) {
	onTransports(t, restartBetweenCalls)
}

func restartBetweenCalls(t *testing.T, tr transport) {
	for _, tc := range []struct {
		name    string
		harm    []byte // what the state file holds at the restart; nil: as saved
		setAway bool
	}{
		{"state kept", nil, false},
		{"state file cut short", []byte(`{"version":1,"sessions":[{"host":`), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServer(t, demoserver.Options{})
			state := filepath.Join(t.TempDir(), "proxy-mem.json")
			px := tr.start(t, proxy.Options{Upstream: srv.URL(), StateFile: state})
			cs := connect(t, px.url)
			count(t, cs)
			px.stop()
			if tc.harm != nil {
				if err := os.WriteFile(state, tc.harm, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			srv.ForgetAll()
			again := tr.startAt(t, px.addr, proxy.Options{Upstream: srv.URL(), StateFile: state, Secret: px.secret})
			settleConns()
			count(t, cs)
			if srv.Count() != 2 {
				t.Errorf("the tool ran %d times for 2 calls", srv.Count())
			}
			if _, err := os.Stat(state + ".bad"); (err == nil) != tc.setAway {
				t.Errorf("state file set aside: %v, want %v", err == nil, tc.setAway)
			}
			if !tc.setAway && len(again.of(proxy.EvRecovered)) != 1 {
				t.Errorf("recoveries after the restart: %d, want 1", len(again.of(proxy.EvRecovered)))
			}
			tr.served(t, again)
		})
	}
}
