package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// goldenFile holds the journal lines the watchdog wrote for goldenEvents
// before event kinds and fields were typed. The journal is a contract
// (CONTRACT.md): a change to these bytes is a change to the contract.
const goldenFile = "testdata/golden.jsonl"

// TestEncodeMatchesGolden drives the health model through every event it
// makes, adds the events the daemon builds itself, and compares each line
// Encode writes with the golden file, byte for byte.
func TestEncodeMatchesGolden(t *testing.T) {
	t.Parallel()
	var got bytes.Buffer
	for _, ev := range goldenEvents() {
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

// goldenEvents are the events of a scripted day: one model, two servers,
// each step chosen so that its events come in a fixed order.
func goldenEvents() []health.Event {
	const (
		hostClient = "dsh-mcp-client"
		hostID     = "host-session-0001-aaaaaaaaaaaa"
		host2ID    = "host-session-0002-bbbbbbbbbbbb"
	)
	m := health.New(health.Config{HostName: "DSH", ClientName: hostClient, HostWatched: true,
		Servers: []health.ServerConfig{{Name: "mem", URL: "http://127.0.0.1:14242/mcp", IdleTimeout: time.Hour},
			{Name: "warm", URL: "http://127.0.0.1:14243/mcp", IdleTimeout: time.Hour}}})
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	st := func(id, client string, created, last time.Duration) health.StoreSession {
		return health.StoreSession{ID: id, Client: client, Created: at(created), LastActivity: at(last)}
	}
	snap := func(server string, ss ...health.StoreSession) health.Signal {
		return health.Signal{Kind: health.SigStoreSnapshot, Server: server, Sessions: ss}
	}
	src := health.LogPosition{File: "/logs/mem.log", Fingerprint: "9f3e77aa", Offset: 4096}
	host := st(hostID, hostClient, 0, 0)
	other := st("other-session-0001-cccccccccccc", "claude", time.Second, time.Second)
	noname := st("noname-session-01-dddddddddddd", "", time.Second, time.Second)
	host2 := st(host2ID, hostClient, 9*time.Minute, 9*time.Minute)
	cursor := st("cursor-session-01-eeeeeeeeeeee", "cursor", 9*time.Minute, 9*time.Minute)
	steps := []struct {
		at  time.Duration
		sig health.Signal // Kind 0: a tick
	}{
		{0, health.Signal{Kind: health.SigHostUp, PID: 42, Started: at(-time.Hour)}},
		{0, snap("mem", host)},
		{time.Second, snap("mem", host, other, noname)},
		{2 * time.Second, health.Signal{Kind: health.SigIdleTimeout, Server: "mem", IdleTimeout: 10 * time.Minute, Source: src}},
		{3 * time.Second, health.Signal{Kind: health.SigLegacyHeaderRejected, Server: "mem", Detail: "Mcp-Session-Id refused", Source: src}},
		{4 * time.Second, health.Signal{Kind: health.SigKeepWarm, Server: "mem", Session: hostID, Outcome: health.OutcomeAlive, Took: 12 * time.Millisecond}},
		{5 * time.Second, health.Signal{Kind: health.SigKeepWarm, Server: "mem", Session: hostID, Outcome: health.OutcomeDown, Took: 5 * time.Second, Detail: "timeout"}},
		{6 * time.Second, health.Signal{Kind: health.SigLiveness, Server: "mem", Outcome: health.OutcomeAlive}},
		{7*time.Minute + 10*time.Second, health.Signal{}},
		{7*time.Minute + 30*time.Second, health.Signal{Kind: health.SigSessionLost, Server: "mem", Detail: "Session not found", Source: src}},
		{7*time.Minute + 31*time.Second, health.Signal{Kind: health.SigHealStarted, Server: "mem", Strategy: "host_restart", Within: time.Minute, Detail: "restarting DSH"}},
		{7*time.Minute + 32*time.Second, health.Signal{Kind: health.SigHealFailed, Server: "mem", Detail: "mem cannot heal itself"}},
		{7*time.Minute + 33*time.Second, health.Signal{Kind: health.SigSessionLost, Server: "mem", Session: noname.ID, Detail: "Session not found"}},
		{7*time.Minute + 40*time.Second, health.Signal{Kind: health.SigReconnected, Server: "mem", Detail: "reconnected"}},
		{8 * time.Minute, health.Signal{Kind: health.SigSessionLost, Server: "mem", Detail: "Session not found"}},
		{8*time.Minute + time.Second, health.Signal{Kind: health.SigHealStarted, Server: "mem", Strategy: "client_recovery", Within: 30 * time.Second, Detail: "triggered"}},
		{8*time.Minute + 40*time.Second, health.Signal{}},
		{9 * time.Minute, health.Signal{Kind: health.SigHealStarted, Server: "mem", Strategy: "client_recovery", Within: time.Minute, Detail: "triggered"}},
		{9*time.Minute + 5*time.Second, snap("mem", host, other, host2, cursor)},
		{11 * time.Minute, snap("mem", host, host2, cursor)},
		{12 * time.Minute, snap("mem", host, host2)},
		{12 * time.Minute, snap("warm")},
		{12 * time.Minute, snap("warm", st("w1", "claude", 12*time.Minute, 12*time.Minute))},
		{14 * time.Minute, snap("warm")},
		{14 * time.Minute, snap("warm", st("w2", "claude", 14*time.Minute, 14*time.Minute))},
		{16 * time.Minute, snap("warm")},
		{17 * time.Minute, health.Signal{Kind: health.SigWoke, Gap: time.Hour}},
		{18 * time.Minute, health.Signal{Kind: health.SigHostUp, PID: 43, Started: at(18 * time.Minute), Restarted: true}},
		{19 * time.Minute, health.Signal{Kind: health.SigHostDown}},
		{20 * time.Minute, health.Signal{Kind: health.SigWarning, Server: "warm", Detail: "cannot read the log"}},
		{21 * time.Minute, health.Signal{Kind: health.SigLiveness, Server: "warm", Outcome: health.OutcomeStateless, Detail: "no session header"}},
	}
	var evs []health.Event
	for _, s := range steps {
		if s.sig.Kind == 0 {
			evs = append(evs, m.Tick(at(s.at))...)
			continue
		}
		evs = append(evs, m.Apply(s.sig, at(s.at))...)
	}
	return append(evs, daemonEvents(at(22*time.Minute))...)
}

// daemonEvents are the events the daemon builds itself, as it builds them.
func daemonEvents(now time.Time) []health.Event {
	return []health.Event{
		{Time: now, Kind: health.EvStarted, Detail: "watchdog 1.0 started, watching DSH and 2 server(s)",
			Extra: map[string]any{"version": "1.0", "config": "/etc/w.toml", "servers": []string{"mem", "warm"}}},
		{Time: now, Kind: health.EvPatchApplied, Detail: "the client patch is in place in /m/index.js",
			Extra: map[string]any{"patch": "applied"}},
		{Time: now, Kind: health.EvNotified, Server: "mem", Detail: "notified: mem recovered in 10s",
			About: "recovered", Extra: map[string]any{"title": "mem recovered in 10s"}},
		{Time: now, Kind: health.EvStopped, Detail: "watchdog stopped"},
	}
}
