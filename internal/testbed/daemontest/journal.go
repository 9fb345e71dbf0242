package daemontest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// JournalLine is one journal line as JSON decodes it.
type JournalLine map[string]any

// Str is the string field k ("" when absent or not a string).
func (e JournalLine) Str(k string) string { s, _ := e[k].(string); return s }

// Time is the event's time; a time that does not parse fails the test.
func (e JournalLine) Time(t *testing.T) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, e.Str("time"))
	if err != nil {
		t.Fatalf("event time %q: %v", e.Str("time"), err)
	}
	return ts
}

// Journal returns the journal's events of the given kinds (all when none),
// failing the test on any line that does not parse.
func Journal(t *testing.T, stateDir string, kinds ...string) []JournalLine {
	t.Helper()
	f, err := os.Open(filepath.Join(stateDir, "events.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []JournalLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev JournalLine
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("journal line does not parse: %q: %v", sc.Text(), err)
		}
		if len(kinds) == 0 || slices.Contains(kinds, ev.Str("kind")) {
			evs = append(evs, ev)
		}
	}
	return evs
}

// WaitFor polls cond until it holds, failing the test after timeout.
func WaitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitEvent waits for the n-th (1-based) event of a kind and returns it.
func WaitEvent(t *testing.T, stateDir, kind string, n int, timeout time.Duration) JournalLine {
	t.Helper()
	var got []JournalLine
	WaitFor(t, timeout, fmt.Sprintf("event #%d of kind %s", n, kind), func() bool {
		got = Journal(t, stateDir, kind)
		return len(got) >= n
	})
	return got[n-1]
}
