package tsserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// uuidRE matches the session ids server.mjs issues (randomUUID).
var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// masked masks every session id in a test diagnostic: ids are credentials, even here.
func masked(v any) string {
	return uuidRE.ReplaceAllStringFunc(fmt.Sprintf("%q", v), mask.ID)
}

// logLayout is internal/demoserver's logTimeFormat, which server.mjs must match.
const logLayout = "2006-01-02T15:04:05.000Z07:00"

// logLines reads the server log and returns its lines without their timestamps (nil when
// the file does not exist). A line whose timestamp is not UTC with milliseconds fails.
func logLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatalf("read log: %v", err)
	}
	var out []string
	for line := range strings.Lines(string(b)) {
		line, complete := strings.CutSuffix(line, "\n")
		ts, rest, _ := strings.Cut(line, " ")
		tm, err := time.Parse(logLayout, ts)
		if !complete || err != nil || tm.Location() != time.UTC || tm.Format(logLayout) != ts {
			t.Fatalf("log line %s: want a complete line starting with UTC time in %s (%v)", masked(line), logLayout, err)
		}
		out = append(out, rest)
	}
	return out
}

// waitLog waits until the log holds exactly want (timestamps stripped).
func waitLog(t *testing.T, path string, want []string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got := logLines(t, path)
		if slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("log %s:\n got  %s\n want %s", path, masked(got), masked(want))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// storeEntry is one session of internal/demoserver's store document.
type storeEntry struct {
	ID           string `json:"id"`
	ClientName   string `json:"client_name"`
	CreatedAt    string `json:"created_at"`
	LastActivity string `json:"last_activity"`
}

// readStore parses the store strictly: no unknown fields, a sessions list, UTC RFC 3339
// times with at least milliseconds, created no later than the last activity.
func readStore(t *testing.T, path string) []storeEntry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read store: %v", err)
	}
	var doc struct {
		Sessions []storeEntry `json:"sessions"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil || doc.Sessions == nil {
		t.Fatalf("store is not a sessions document (%v):\n%s", err, masked(string(b)))
	}
	for _, e := range doc.Sessions {
		created, last := storeTime(t, e.CreatedAt), storeTime(t, e.LastActivity)
		if last.Before(created) {
			t.Fatalf("store entry %s: last activity before creation", masked(fmt.Sprintf("%+v", e)))
		}
	}
	return doc.Sessions
}

func storeTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || !strings.HasSuffix(s, "Z") || !strings.Contains(s, ".") {
		t.Fatalf("store time %q: want RFC 3339 UTC with a fraction (%v)", s, err)
	}
	return tm
}

func storeFind(entries []storeEntry, id string) (storeEntry, bool) {
	for _, e := range entries {
		if e.ID == id {
			return e, true
		}
	}
	return storeEntry{}, false
}

func assertMode0600(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("%s: mode %v, want 0600", path, st.Mode().Perm())
	}
}

// goLogValue is internal/demoserver's logValue, the oracle for server.mjs's quoting.
func goLogValue(v string) string {
	if v == "" || strings.ContainsAny(v, " \t\r\n\"=") || !strconv.CanBackquote(v) {
		return strconv.Quote(v)
	}
	return v
}

// initNamed initializes a session announcing clientInfo.name = name; returns its id.
func initNamed(t *testing.T, s *Server, name string) string {
	t.Helper()
	body, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{
			"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": name, "version": "1"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	a := do(t, http.MethodPost, s.URL(), "", string(body))
	id := a.header.Get("Mcp-Session-Id")
	if a.status != http.StatusOK || id == "" {
		t.Fatalf("initialize as %q: HTTP %d, body %s", name, a.status, a.body)
	}
	return id
}

// nextEvent takes the next event from ch, failing after a minute.
func nextEvent(t *testing.T, ch <-chan Event) Event {
	t.Helper()
	select {
	case e := <-ch:
		return e
	case <-time.After(time.Minute):
		t.Fatal("no session event within a minute")
		return Event{}
	}
}
