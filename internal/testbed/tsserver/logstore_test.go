package tsserver

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver/truth"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// TestLogAndStoreFollowSessions: the log gets the start-up line, the created line, the
// mode's WARN for an unknown id and the closed line, with demoserver's keys; the store
// starts empty, lists the session with its client, and drops it after its idle end;
// OnEvent sees the start and the end.
func TestLogAndStoreFollowSessions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode   Mode
		status int
		warn   string
	}{
		{Stateful, http.StatusNotFound, "WARN Session not found session_id=unknown-session"},
		{Quirk, http.StatusBadRequest, "WARN Bad Request: No valid session ID provided session_id=unknown-session"},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			logPath, storePath := filepath.Join(dir, "server.log"), filepath.Join(dir, "mcp-sessions.json")
			events := make(chan Event, 16)
			s := Start(t, Options{Mode: tc.mode, IdleTimeout: 1500 * time.Millisecond,
				LogPath: logPath, StorePath: storePath, OnEvent: func(e Event) { events <- e }})
			if got := readStore(t, storePath); len(got) != 0 {
				t.Fatalf("store at start lists %d sessions, want none", len(got))
			}
			assertMode0600(t, storePath)
			assertMode0600(t, logPath)

			id := initSession(t, s)
			var seen storeEntry
			eventually(t, "the store to list the session", func() bool {
				if a := ping(t, s, id); a.status != http.StatusOK {
					t.Fatalf("ping: HTTP %d body %q", a.status, a.body)
				}
				var ok bool
				seen, ok = storeFind(readStore(t, storePath), id)
				return ok
			})
			if seen.ClientName != "tsserver-test" {
				t.Fatalf("store client_name %q, want tsserver-test", seen.ClientName)
			}
			if a := ping(t, s, "unknown-session"); a.status != tc.status {
				t.Fatalf("unknown id: HTTP %d, want %d", a.status, tc.status)
			}
			if reason := s.WaitEnded(t, id); reason != "idle" {
				t.Fatalf("end reason %q, want idle", reason)
			}
			eventually(t, "the store to drop the ended session", func() bool {
				return len(readStore(t, storePath)) == 0
			})
			waitLog(t, logPath, []string{
				"INFO MCP session idle timeout and restart restore store configured seconds=1.5 store_path=" + storePath,
				"INFO MCP session created session_id=" + id + " client=tsserver-test",
				tc.warn,
				"INFO MCP session closed session_id=" + id + " reason=idle",
			})
			if entries, _ := os.ReadDir(dir); len(entries) != 2 {
				t.Fatalf("%d files in the store's directory, want the log and the store (temp files left?)", len(entries))
			}
			wantStartThenIdleEnd(t, events, id)
		})
	}
}

// wantStartThenIdleEnd checks that the next two events are the start of
// session id by tsserver-test and its end on idle.
func wantStartThenIdleEnd(t *testing.T, events <-chan Event, id string) {
	t.Helper()
	start, end := nextEvent(t, events), nextEvent(t, events)
	if start.Kind != truth.Start || start.ID != id || start.Client != "tsserver-test" || start.At.IsZero() {
		t.Fatalf("first event %s, want the start of %s by tsserver-test", masked(fmt.Sprintf("%+v", start)), mask.ID(id))
	}
	if end.Kind != truth.End || end.ID != id || end.Reason != "idle" || end.At.Before(start.At) {
		t.Fatalf("second event %s, want the idle end of %s after %v", masked(fmt.Sprintf("%+v", end)), mask.ID(id), start.At)
	}
}

// TestLogFollowsRotation: after the log is renamed away, copied and truncated, or deleted,
// the next line lands in a file at the original path, and a renamed-away file gets
// nothing more.
func TestLogFollowsRotation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "server.log")
	s := Start(t, Options{Mode: Stateful, LogPath: logPath})
	created := func(id string) string { return "INFO MCP session created session_id=" + id + " client=tsserver-test" }
	first := initSession(t, s)
	waitLog(t, logPath, []string{created(first)}) // no start-up line without idle timeout and store

	rotated := logPath + ".1"
	for _, rot := range []struct {
		name   string
		rotate func() error
	}{
		{"rename", func() error { return os.Rename(logPath, rotated) }},
		{"copytruncate", func() error {
			b, err := os.ReadFile(logPath)
			if err == nil {
				err = os.WriteFile(logPath+".2", b, 0o600)
			}
			if err == nil {
				err = os.Truncate(logPath, 0)
			}
			return err
		}},
		{"delete", func() error { return os.Remove(logPath) }},
	} {
		if err := rot.rotate(); err != nil {
			t.Fatalf("%s: %v", rot.name, err)
		}
		id := initSession(t, s)
		waitLog(t, logPath, []string{created(id)})
		assertMode0600(t, logPath)
	}
	if got := logLines(t, rotated); len(got) != 1 || got[0] != created(first) {
		t.Fatalf("renamed-away log got more lines: %s", masked(got))
	}
}

// TestSessionStartCarriesClientName: each initialize's clientInfo.name reaches the
// SESSION_START line, OnEvent, the store and the log, quoted in the log exactly as Go's
// strconv does; a DELETE's end reaches OnEvent too.
func TestSessionStartCarriesClientName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logPath, storePath := filepath.Join(dir, "server.log"), filepath.Join(dir, "mcp-sessions.json")
	var mu sync.Mutex
	var seen []Event
	s := Start(t, Options{Mode: Stateful, LogPath: logPath, StorePath: storePath, OnEvent: func(e Event) {
		mu.Lock()
		seen = append(seen, e)
		mu.Unlock()
	}})
	names := []string{"tsserver-test", "my client", "", "a\nb", "é…", "back`tick", "ctl\x01", "x=y",
		"tab\there", "\u00a0nbsp", "zero\u200bwidth", "\ufeffbom", `"q"`}
	var wantLog []string
	var ids []string
	for _, name := range names {
		id := initNamed(t, s, name)
		ids = append(ids, id)
		wantLog = append(wantLog, "INFO MCP session created session_id="+id+" client="+goLogValue(name))
	}
	waitLog(t, logPath, wantLog)
	// The log line is written before the stdout line, which the reader may not have read yet.
	eventually(t, "every SESSION_START line", func() bool { return len(s.Started()) >= len(names) })
	started := s.Started()
	if len(started) != len(names) {
		t.Fatalf("Started() has %d events, want %d", len(started), len(names))
	}
	for i, e := range started {
		want := strings.NewReplacer("\r", " ", "\n", " ").Replace(names[i])
		if e.ID != ids[i] || e.Client != want {
			t.Errorf("start %d: id %s client %q, want %s %q", i, mask.ID(e.ID), e.Client, mask.ID(ids[i]), want)
		}
	}
	eventually(t, "the store to list every session", func() bool { return len(readStore(t, storePath)) == len(names) })
	for i, e := range readStore(t, storePath) {
		if e.ID != ids[i] || e.ClientName != names[i] {
			t.Errorf("store entry %d: %s %q, want %s %q", i, mask.ID(e.ID), e.ClientName, mask.ID(ids[i]), names[i])
		}
	}

	if a := do(t, http.MethodDelete, s.URL(), ids[0], ""); a.status != http.StatusOK {
		t.Fatalf("DELETE: HTTP %d body %q", a.status, a.body)
	}
	s.WaitEnded(t, ids[0])
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != len(names)+1 {
		t.Fatalf("OnEvent saw %d events, want %d", len(seen), len(names)+1)
	}
	for i, e := range started {
		if seen[i] != e {
			t.Errorf("OnEvent %d = %s, Started() has %s", i, masked(fmt.Sprintf("%+v", seen[i])), masked(fmt.Sprintf("%+v", e)))
		}
	}
	if last := seen[len(names)]; last.Kind != truth.End || last.ID != ids[0] || last.Reason != "deleted" {
		t.Errorf("last event %s, want the deleted end of the first session", masked(fmt.Sprintf("%+v", last)))
	}
}

// TestKillLeavesStoreAndRestartEmptiesIt: SIGKILL leaves the store listing the live
// session; a server started again on the same port with the same store and log
// rewrites the store empty before it listens and appends its start-up line.
func TestKillLeavesStoreAndRestartEmptiesIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logPath, storePath := filepath.Join(dir, "server.log"), filepath.Join(dir, "mcp-sessions.json")
	opts := Options{Mode: Stateful, IdleTimeout: time.Hour, LogPath: logPath, StorePath: storePath}
	s := Start(t, opts)
	id := initSession(t, s)
	eventually(t, "the store to list the session", func() bool {
		_, ok := storeFind(readStore(t, storePath), id)
		return ok
	})
	s.Kill()
	if _, ok := storeFind(readStore(t, storePath), id); !ok {
		t.Fatal("the store lost the session when the server was killed")
	}
	if len(s.Ended()) != 0 {
		t.Fatalf("a killed server reported %d session ends", len(s.Ended()))
	}

	opts.Port = portOf(t, s.URL())
	s2 := Start(t, opts)
	if s2.URL() != s.URL() {
		t.Fatalf("restarted URL %q, want %q", s2.URL(), s.URL())
	}
	if got := readStore(t, storePath); len(got) != 0 {
		t.Fatalf("restarted server's store lists %d sessions, want none", len(got))
	}
	configured := "INFO MCP session idle timeout and restart restore store configured seconds=3600 store_path=" + storePath
	waitLog(t, logPath, []string{configured, "INFO MCP session created session_id=" + id + " client=tsserver-test", configured})
}
