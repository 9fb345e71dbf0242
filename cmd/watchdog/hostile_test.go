package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// Text from outside the process (client names from a session store,
// server names, log lines, URLs with tokens) as it reaches a terminal:
// issue 15, measurements A to E.

// Hostile strings a client, a store or a server may choose.
const (
	clearScreen = "\x1b[2J"
	setTitle    = "\x1b]0;pwned\x07"
	rlo         = "\u202e" // right-to-left override
)

// hostileClient forges a status line after a newline and drives the
// terminal before it.
const hostileClient = clearScreen + setTitle + "evil\nserver forged (x): healthy" + rlo

// rawTerminal fails the test when out holds a byte or character that
// drives a terminal or reorders text: the raw forms of what hostile
// strings carry.
func rawTerminal(t *testing.T, what, out string) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\x07", rlo, "\u2066", "\x9b"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s carries the raw %q:\n%s", what, bad, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "server forged") {
			t.Errorf("%s has a forged line %q", what, l)
		}
	}
}

// hostileSetup writes a store holding sessions with hostile client names
// and ids (and two short ids), a config whose server URL carries a token
// in its query and answers nothing, and returns the config, the state
// dir, the ids and the token.
func hostileSetup(t *testing.T) (cfg, state string, ids []string, token string) {
	t.Helper()
	dir := t.TempDir()
	store := filepath.Join(dir, "mcp-sessions.json")
	long := rlo + "\x1b[5m" + "0123456789abcdef" + "\x1b]2;id\x07" // shares no 9 bytes with hostileClient
	ids = []string{long, "s1", "s2"}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	var entries []string
	for i, id := range ids {
		client := "a"
		if i == 0 {
			client = hostileClient
		}
		b, _ := json.Marshal(map[string]string{"id": id, "client_name": client, "last_activity": now})
		entries = append(entries, string(b))
	}
	if err := os.WriteFile(store, []byte(`{"sessions":[`+strings.Join(entries, ",")+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	token = "wd-query-token-" + fmt.Sprint(time.Now().UnixNano())
	cfg = daemontest.WriteConfig(t, dir, fmt.Sprintf(`
[host]
process = ""
port = 0
[[server]]
name = "mem"
url = "http://%s/mcp?token=%s"
store = %q
idle_timeout = "1h"
keep_warm = false
`, daemontest.FreePort(t), token, store))
	return cfg, filepath.Join(dir, "state"), ids, token
}

// TestSecurityStatusEscapesOutsideText: measurements A and D. `watchdog
// status` printed client names from the store raw (an ESC[2J cleared the
// screen, an OSC set the window title, a newline forged a line), masked
// ids kept raw control and bidi characters, and a query token in a
// server's URL was shown in status and journaled with every server_down.
// Now the text is escaped, --json keeps the true client name, ids are
// masked (short ones to distinct hashes) and the token is REDACTED
// everywhere: status, journal, doctor.
func TestSecurityStatusEscapesOutsideText(t *testing.T) {
	t.Parallel()
	cfg, state, ids, token := hostileSetup(t)
	startDaemon(t, cfg, state)
	var st map[string]any
	daemontest.WaitFor(t, 15*time.Second, "the store's three sessions in status", func() bool {
		st = statusJSON(t, cfg, state)
		_, sessions := daemontest.ServerState(st, "mem")
		return len(sessions) == 3
	})
	daemontest.WaitEvent(t, state, "server_down", 1, 20*time.Second)

	code, out, errOut := runWatchdog(t, "status", "--config", cfg, "--state-dir", state)
	if code != exitOK {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	rawTerminal(t, "status", out)
	for _, want := range []string{`\x1b[2J\x1b]0;p`, `\u202e\x1b[5…;id\x07`, "token=REDACTED"} {
		if !strings.Contains(out, want) {
			t.Errorf("status does not show %q escaped:\n%s", want, out)
		}
	}

	_, rawJSON, _ := runWatchdog(t, "status", "--json", "--config", cfg, "--state-dir", state)
	rawTerminal(t, "status --json", rawJSON) // the true name, with \u escapes where JSON leaves bidi raw
	_, sessions := daemontest.ServerState(st, "mem")
	masks := map[string]bool{}
	trueName := false
	for _, s := range sessions {
		m, _ := s.(map[string]any)
		id, _ := m["id"].(string)
		masks[id] = true
		rawTerminal(t, "a masked id in status --json", id)
		trueName = trueName || m["client"] == hostileClient
	}
	if !trueName {
		t.Errorf("status --json sessions %v: none carries the client's true name %q", sessions, hostileClient)
	}
	if len(masks) != 3 || !masks[daemontest.MaskedID("s1")] || !masks[daemontest.MaskedID("s2")] || masks["…"] {
		t.Errorf("masked ids %v: want three told apart, short ones as hashes", masks)
	}
	servers, _ := st["servers"].([]any)
	if url, _ := servers[0].(map[string]any)["url"].(string); !strings.HasSuffix(url, "/mcp?token=REDACTED") {
		t.Errorf("status --json url %q, want the token redacted", url)
	}

	tokenNowhere(t, cfg, state, map[string]string{"status": out, "status --json": fmt.Sprint(st)}, ids[0], token)
}

// tokenNowhere checks that neither the given outputs, nor the journal,
// nor doctor (text and JSON) show the URL's token or the session id, and
// that doctor drives no terminal.
func tokenNowhere(t *testing.T, cfg, state string, outs map[string]string, id, token string) {
	t.Helper()
	journal, err := os.ReadFile(filepath.Join(state, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	doctorOut := ""
	for _, args := range [][]string{{"doctor"}, {"doctor", "--json"}} {
		_, o, e := runWatchdog(t, append(args, "--config", cfg, "--state-dir", state)...)
		doctorOut += o + e
	}
	rawTerminal(t, "doctor", doctorOut)
	outs["the journal"], outs["doctor"] = string(journal), doctorOut
	for what, text := range outs {
		if strings.Contains(text, token) {
			t.Errorf("%s shows the URL's token:\n%s", what, text)
		}
		hidden(t, what, text, []string{id}, nil)
	}
	if !strings.Contains(string(journal), "token=REDACTED") {
		t.Errorf("the journal's server_down does not name the URL redacted; the check above proves little:\n%s", journal)
	}
}

// TestSecurityScanMasksEveryShape: measurement B. `watchdog scan` printed
// full ids in "Session not found: <id>", "sid=<id>" and "No valid session
// ID provided: <uuid>", in text and --json. Every one is masked now (a
// short id to its hash), and a log line's escapes reach no terminal.
func TestSecurityScanMasksEveryShape(t *testing.T) {
	t.Parallel()
	const (
		uuid1 = "6f1c2b3a-9d4e-4f5a-8b6c-7d8e9f0a1b2c"
		uuid2 = "0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b"
		hex   = "0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d"
		short = "a1b2c3d4e5"
	)
	log := filepath.Join(t.TempDir(), "server.log")
	body := strings.Join([]string{
		"2025-11-29T08:30:00Z ERROR Session not found: " + uuid1,
		"2025-11-29T08:31:00Z WARN handler sid=" + hex + " Session not found",
		"2025-11-29T08:32:00Z Bad Request: No valid session ID provided: " + uuid2,
		"2025-11-29T08:33:00Z INFO Session terminated sid=" + short,
		"2025-11-29T08:34:00Z INFO Session terminated " + setTitle + clearScreen + rlo + " by a hostile line",
	}, "\n") + "\n"
	if err := os.WriteFile(log, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	ids := []string{uuid1, uuid2, hex}
	for _, args := range [][]string{{"scan", log}, {"scan", log, "--json"}} {
		code, out, errOut := runWatchdog(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		hidden(t, strings.Join(args, " "), out+errOut, ids, nil)
		if strings.Contains(out, short) {
			t.Errorf("%v shows the short id %s:\n%s", args, short, out)
		}
		for _, id := range append(ids, short) {
			if !strings.Contains(out, daemontest.MaskedID(id)) {
				t.Errorf("%v does not name %s masked as %s:\n%s", args, id[:4], daemontest.MaskedID(id), out)
			}
		}
		if len(args) == 2 {
			rawTerminal(t, "scan", out)
			if !strings.Contains(out, `pwned\x07`) || !strings.Contains(out, `\u202e by a hostile line`) {
				t.Errorf("scan does not show the line's escapes escaped:\n%s", out)
			}
		}
	}
}

// TestStatusBadStateDirExitsThree: measurement E. `watchdog status
// --state-dir FILE` exited 1; the contract says 3 when no daemon runs, and
// none runs in a state dir that is a file, missing, or has no socket.
func TestStatusBadStateDirExitsThree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := daemontest.WriteConfig(t, dir, "[host]\nname = \"DSH\"\n")
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("not a dir\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, stateDir, want string }{
		{"a regular file", file, "is not a directory (it is a regular file)"},
		{"a missing directory", filepath.Join(dir, "missing"), "does not exist"},
		{"a directory without a socket", empty, "no watchdog daemon running"},
	}
	for _, tt := range tests {
		for _, cmd := range []string{"status", "heal"} {
			code, out, errOut := runWatchdog(t, cmd, "--config", cfg, "--state-dir", tt.stateDir)
			if code != exitNoDaemon || !strings.Contains(errOut, tt.want) || !strings.Contains(errOut, "watchdog run") {
				t.Errorf("%s with %s: exit %d, output %q; want exit 3 saying %q and how to start one", cmd, tt.name, code, out+errOut, tt.want)
			}
		}
	}
}
