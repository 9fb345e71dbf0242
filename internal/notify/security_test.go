package notify

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/mcpwatchdog/watchdog/monitor/classify"
)

// pingDetail is a keep-warm ping's Detail as the pinger builds it: the
// reason mcphttp gives for a real answer, from a server that echoes the
// session id in its 404 body.
func pingDetail(t *testing.T, sid string) string {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Session "+r.Header.Get(mcphttp.HeaderSessionID)+" not found", http.StatusNotFound)
	}))
	defer hs.Close()
	c, err := mcphttp.New(mcphttp.Options{URL: hs.URL, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Ping(context.Background(), sid, "")
	cl := mcphttp.Judge(resp, err)
	if cl.Verdict != mcphttp.Lost {
		t.Fatalf("the echoing server's answer reads %v %q, want lost", cl.Verdict, cl.Reason)
	}
	return cl.Reason
}

// logSignal is a log line naming sid, classified and turned into a signal
// the way the daemon's line reader does.
func logSignal(t *testing.T, line, sid string) health.Observation {
	t.Helper()
	m, ok := classify.LogLine([]byte(line))
	if !ok || m.Kind != classify.SessionLost || m.Session != sid {
		t.Fatalf("line %q: match %+v, %v", line, m, ok)
	}
	return health.SessionLost{LogLine: health.LogLine{Server: "mem", Session: m.Session, Detail: "dsh.log reports " + m.Rule}}
}

// leaks says whether s holds any 9 bytes of id in a row: a mask shows 4
// and 4, never more.
func leaks(s, id string) bool {
	for i := 0; i+9 <= len(id); i++ {
		if strings.Contains(s, id[i:i+9]) {
			return true
		}
	}
	return false
}

// TestSecurityNotificationsNeverShowAFullSessionID drives the real health
// model with signals that carry full session ids (a store snapshot, a log
// line naming the id, a keep-warm ping whose server echoed it, heal
// outcomes), feeds every event it makes to the notifier, and reads every
// notification it sends, reminders included: none shows an id.
func TestSecurityNotificationsNeverShowAFullSessionID(t *testing.T) {
	t.Parallel()
	const sid, sid2 = "0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
	now := t0
	n := New(Options{Now: func() time.Time { return now }, Reminder: time.Hour})
	m := health.New(health.Config{HostName: "DSH", ClientName: "dsh-mcp-client",
		Servers: []health.ServerConfig{{Name: "mem", URL: "http://127.0.0.1:14242/mcp", IdleTimeout: time.Hour}}})
	var kinds []health.EventKind
	feed := func(evs []health.Event) {
		for _, ev := range evs {
			kinds = append(kinds, ev.Kind)
			n.Consider(ev)
		}
	}
	at := func(d time.Duration) time.Time { now = t0.Add(d); return now }
	snapshot := func(id string, last time.Time) health.Observation {
		return health.StoreSnapshot{Server: "mem", Sessions: []health.StoreSession{{ID: id, Client: "dsh-mcp-client", LastActivity: last, Created: last}}}
	}

	feed(m.Apply(health.HostUp{PID: 4242, Started: t0.Add(-time.Hour)}, at(0)))
	feed(m.Apply(snapshot(sid, t0), at(0)))
	feed(m.Tick(at(55 * time.Minute))) // at risk
	feed(m.Apply(health.KeepWarmAnswered{Server: "mem", Session: sid, Outcome: health.OutcomeLost, Detail: pingDetail(t, sid)}, at(56*time.Minute)))
	feed(m.Apply(logSignal(t, "2026-11-30T07:56:01Z ERROR [mcp mem] session "+sid+
		" Streamable HTTP error: Error POSTing to endpoint: Not Found: Session not found", sid), at(56*time.Minute)))
	feed(m.Apply(health.HealStarted{Server: "mem", Strategy: "client_recovery", Detail: "asked the patched client to reconnect", Within: time.Minute}, at(57*time.Minute)))
	feed(m.Tick(at(59 * time.Minute))) // the recovery is overdue: heal_failed
	n.Tick()
	at(2 * time.Hour)
	n.Tick() // still lost
	feed(m.Apply(snapshot(sid2, now), at(2*time.Hour+time.Minute)))

	sent := n.takePending()
	var titles []string
	for _, msg := range sent {
		titles = append(titles, msg.Title)
		for _, id := range []string{sid, sid2} {
			if leaks(msg.Title, id) || leaks(msg.Body, id) {
				t.Errorf("notification %q / %q shows session id %s", msg.Title, msg.Body, id)
			}
		}
	}
	want := []string{"mem: session at risk", "mem: session lost — the watchdog is healing it", "mem: healing failed",
		"mem: session still lost"}
	for _, w := range want {
		if !slices.Contains(titles, w) {
			t.Errorf("no %q notification (sent %q; events %q): the test did not reach every message", w, titles, kinds)
		}
	}
	if !slices.ContainsFunc(titles, func(s string) bool { return strings.HasPrefix(s, "mem recovered in ") }) {
		t.Errorf("no recovery notification (sent %q; events %q)", titles, kinds)
	}
}
