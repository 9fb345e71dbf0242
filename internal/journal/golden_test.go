package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// goldenFile holds the journal lines the watchdog wrote for goldenEvents
// before event kinds and fields were typed. The journal is a contract
// (docs/DESIGN.md, "Journal and status"): a change to these bytes is a change
// to the contract.
const goldenFile = "testdata/golden.jsonl"

// TestEncodeMatchesGolden drives the health model through every event it
// makes, adds the events the daemon builds itself, and compares each line
// Encode writes with the golden file, byte for byte.
func TestEncodeMatchesGolden(t *testing.T) {
	t.Parallel()
	var got bytes.Buffer
	for _, ev := range goldenEvents() {
		// The model builds each event with its kind's family, never
		// leaving it to Carried's zero value.
		if reflect.TypeOf(ev.Facts) != reflect.TypeOf(health.FactsOf(ev.Kind)) {
			t.Errorf("%s carries %T, want %T", ev.Kind, ev.Facts, health.FactsOf(ev.Kind))
		}
		line, err := Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		got.Write(line)
	}
	if os.Getenv("JOURNAL_WRITE_GOLDEN") != "" {
		if err := os.WriteFile(filepath.FromSlash(goldenFile), got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(filepath.FromSlash(goldenFile))
	if err != nil {
		t.Fatal(err)
	}
	gotLines, wantLines := bytes.Split(got.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range max(len(gotLines), len(wantLines)) {
		var g, w []byte
		if i < len(gotLines) {
			g = gotLines[i]
		}
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if !bytes.Equal(g, w) {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
}

// goldenEvents are the events of a scripted day (goldenSteps) and the
// events the daemon builds itself.
func goldenEvents() []health.Event {
	m := health.New(health.Config{HostName: "DSH", ClientName: "dsh-mcp-client", HostWatched: true,
		Servers: []health.ServerConfig{{Name: "mem", URL: "http://127.0.0.1:14242/mcp", IdleTimeout: time.Hour},
			{Name: "warm", URL: "http://127.0.0.1:14243/mcp", IdleTimeout: time.Hour}}})
	var evs []health.Event
	for _, s := range goldenSteps() {
		if s.sig == nil {
			evs = append(evs, m.Tick(t0.Add(s.at))...)
			continue
		}
		evs = append(evs, m.Apply(s.sig, t0.Add(s.at))...)
	}
	return append(evs, daemonEvents(t0.Add(22*time.Minute))...)
}

// goldenStep is one observation (nil: a tick) at an offset from t0.
type goldenStep struct {
	at  time.Duration
	sig health.Observation
}

// goldenSteps drive one model with two servers through every event it
// makes, each step chosen so that its events come in a fixed order.
func goldenSteps() []goldenStep {
	const hostClient, hostID = "dsh-mcp-client", "host-session-0001-aaaaaaaaaaaa"
	st := func(id, client string, created, last time.Duration) health.StoreSession {
		return health.StoreSession{ID: id, Client: client, Created: t0.Add(created), LastActivity: t0.Add(last)}
	}
	snap := func(server string, ss ...health.StoreSession) health.Observation {
		return health.StoreSnapshot{Server: server, Sessions: ss}
	}
	lost := func(id string, src health.LogPosition) health.Observation {
		return health.SessionLost{LogLine: health.LogLine{Server: "mem", Session: id, Detail: "Session not found", Source: src}}
	}
	healing := func(s health.Strategy, within time.Duration, detail string) health.Observation {
		return health.HealStarted{Server: "mem", Strategy: s, Within: within, Detail: detail}
	}
	src := health.LogPosition{File: "/logs/mem.log", Fingerprint: "9f3e77aa", Offset: 4096}
	host, other := st(hostID, hostClient, 0, 0), st("other-session-0001-cccccccccccc", "claude", time.Second, time.Second)
	noname := st("noname-session-01-dddddddddddd", "", time.Second, time.Second)
	host2 := st("host-session-0002-bbbbbbbbbbbb", hostClient, 9*time.Minute, 9*time.Minute)
	cursor := st("cursor-session-01-eeeeeeeeeeee", "cursor", 9*time.Minute, 9*time.Minute)
	const m = time.Minute
	return []goldenStep{
		{0, health.HostUp{PID: 42, Started: t0.Add(-time.Hour)}}, {0, snap("mem", host)},
		{time.Second, snap("mem", host, other, noname)},
		{2 * time.Second, health.IdleTimeoutAnnounced{LogLine: health.LogLine{Server: "mem", Source: src}, Timeout: 10 * m}},
		{3 * time.Second, health.LegacyHeaderRejected{LogLine: health.LogLine{Server: "mem", Detail: "Mcp-Session-Id refused", Source: src}}},
		{4 * time.Second, health.KeepWarmAnswered{Server: "mem", Session: hostID, Outcome: health.OutcomeAlive, Took: 12 * time.Millisecond}},
		{5 * time.Second, health.KeepWarmAnswered{Server: "mem", Session: hostID, Outcome: health.OutcomeDown, Took: 5 * time.Second, Detail: "timeout"}},
		{6 * time.Second, health.LivenessAnswered{Server: "mem", Outcome: health.OutcomeAlive}},
		{7*m + 10*time.Second, nil},
		{7*m + 30*time.Second, lost("", src)},
		{7*m + 31*time.Second, healing("host_restart", m, "restarting DSH")},
		{7*m + 32*time.Second, health.HealFailed{Server: "mem", Detail: "mem cannot heal itself"}},
		{7*m + 33*time.Second, lost(noname.ID, health.LogPosition{})},
		{7*m + 40*time.Second, health.Reconnected{LogLine: health.LogLine{Server: "mem", Detail: "reconnected"}}},
		{8 * m, lost("", health.LogPosition{})},
		{8*m + time.Second, healing("client_recovery", 30*time.Second, "triggered")},
		{8*m + 40*time.Second, nil},
		{9 * m, healing("client_recovery", m, "triggered")},
		{9*m + 5*time.Second, snap("mem", host, other, host2, cursor)},
		{11 * m, snap("mem", host, host2, cursor)}, {12 * m, snap("mem", host, host2)},
		{12 * m, snap("warm")}, {12 * m, snap("warm", st("w1", "claude", 12*m, 12*m))}, {14 * m, snap("warm")},
		{14 * m, snap("warm", st("w2", "claude", 14*m, 14*m))}, {16 * m, snap("warm")},
		{17 * m, health.Woke{Gap: time.Hour}},
		{18 * m, health.HostUp{PID: 43, Started: t0.Add(18 * m), Restarted: true}},
		{19 * m, health.HostDown{}},
		{20 * m, health.Warning{Server: "warm", Detail: "cannot read the log"}},
		{21 * m, health.LivenessAnswered{Server: "warm", Outcome: health.OutcomeStateless, Detail: "no session header"}},
	}
}

// daemonEvents are the events the daemon builds itself, as it builds them.
func daemonEvents(now time.Time) []health.Event {
	return []health.Event{
		{Time: now, Kind: health.EvStarted, Detail: "watchdog 1.0 started, watching DSH and 2 server(s)",
			Extra: map[string]any{"version": "1.0", "config": "/etc/w.toml", "servers": []string{"mem", "warm"}}},
		{Time: now, Kind: health.EvPatchApplied, Detail: "the client patch is in place in /m/index.js",
			Extra: map[string]any{"patch": "applied"}},
		{Time: now, Kind: health.EvNotified, Server: "mem", Detail: "notified: mem recovered in 10s",
			Facts: health.Notice{About: "recovered"}, Extra: map[string]any{"title": "mem recovered in 10s"}},
		{Time: now, Kind: health.EvStopped, Detail: "watchdog stopped"},
	}
}
