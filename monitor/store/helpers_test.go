package store

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitLimit is generous: a loaded 2-core machine must not fail a test.
const waitLimit = 20 * time.Second

var fixedNow = time.Date(2025, 11, 29, 12, 0, 0, 0, time.UTC)

type harness struct {
	t    *testing.T
	w    *Watcher
	out  chan Update
	logs *lockedBuffer
}

// startWatcher runs a Watcher until the test ends, checking that Run returns
// nil and that no full session id was logged.
func startWatcher(t *testing.T, opts Options) *harness {
	t.Helper()
	if opts.Retry == 0 {
		opts.Retry = 100 * time.Millisecond
	}
	logs := &lockedBuffer{}
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	opts.Now = func() time.Time { return fixedNow }
	h := &harness{t: t, w: NewWatcher(opts), out: make(chan Update), logs: logs}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.w.Run(ctx, h.out) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run returned %v, want nil after cancel", err)
			}
		case <-time.After(waitLimit):
			t.Error("Run did not return after cancel")
		}
		for _, id := range []string{idA, idB, idC} {
			if strings.Contains(logs.String(), id) {
				t.Errorf("a full session id was logged:\n%s", logs.String())
			}
		}
	})
	return h
}

// waitFor returns the updates up to and including the first that matches.
func (h *harness) waitFor(what string, match func(Update) bool) []Update {
	h.t.Helper()
	var seen []Update
	deadline := time.After(waitLimit)
	for {
		select {
		case u := <-h.out:
			seen = append(seen, u)
			if match(u) {
				return seen
			}
		case <-deadline:
			h.t.Fatalf("no %s within %v; saw %s", what, waitLimit, describeUpdates(seen))
		}
	}
}

func (h *harness) next() Update {
	h.t.Helper()
	return h.waitFor("update", func(Update) bool { return true })[0]
}

// quiet reports an update that arrives within d; slowness can only hide one.
func (h *harness) quiet(d time.Duration) {
	h.t.Helper()
	select {
	case u := <-h.out:
		h.t.Fatalf("unexpected update: %s", describeUpdates([]Update{u}))
	case <-time.After(d):
	}
}

func isSnapshot(u Update) bool { return u.Snapshot != nil }
func isGone(u Update) bool     { return u.Gone }
func isErr(u Update) bool      { return u.Err != nil }

func snapshotWith(ids ...string) func(Update) bool {
	return func(u Update) bool {
		if u.Snapshot == nil || len(u.Snapshot.Sessions) != len(ids) {
			return false
		}
		for i, s := range u.Snapshot.Sessions {
			if s.ID != ids[i] {
				return false
			}
		}
		return true
	}
}

func describeUpdates(list []Update) string {
	var b strings.Builder
	for _, u := range list {
		switch {
		case u.Snapshot != nil:
			b.WriteString("[snapshot " + u.Path + ": " + describe(u.Snapshot.Sessions) + "]")
		case u.Gone:
			b.WriteString("[gone " + u.Path + "]")
		default:
			b.WriteString("[err " + u.Err.Error() + "]")
		}
	}
	if b.Len() == 0 {
		return "nothing"
	}
	return b.String()
}

// tracker plays the model: it applies Compare to each snapshot, and
// remembers every removal it saw.
type tracker struct {
	sessions []Session
	removed  []string
}

func (tr *tracker) apply(updates []Update) {
	for _, u := range updates {
		if u.Snapshot != nil {
			for _, s := range Compare(tr.sessions, u.Snapshot.Sessions).Removed {
				tr.removed = append(tr.removed, s.ID)
			}
			tr.sessions = u.Snapshot.Sessions
		}
	}
}

const idC = "c0ffee00-1111-2222-3333-444455556666"

// storeJSON renders sessions as a map keyed by id, as a server would.
func storeJSON(t *testing.T, sessions ...Session) []byte {
	t.Helper()
	m := map[string]any{}
	for _, s := range sessions {
		m[s.ID] = map[string]any{
			"client_info":   map[string]string{"name": s.Client},
			"last_activity": s.LastActivity.Format(time.RFC3339Nano),
			"created_at":    s.Created.Format(time.RFC3339Nano),
		}
	}
	data, err := json.MarshalIndent(map[string]any{"sessions": m}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// writeAtomic saves as careful writers do: a temp file, then rename.
func writeAtomic(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mcp-sessions-*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tmp.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
