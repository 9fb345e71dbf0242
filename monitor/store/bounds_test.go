package store

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// manyStore renders n sessions in list form; session i was active i seconds
// after t0800, so the higher i, the more recent.
func manyStore(n int, pad int) []byte {
	var b strings.Builder
	b.WriteString(`{"meta": {"note": "`)
	b.WriteString(strings.Repeat("x", pad))
	b.WriteString(`"}, "sessions": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"session_id": "s-%07d", "client_name": "c", "last_activity": %d}`, i, t0800.Unix()+int64(i))
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// TestParseCapsSessions: a store holding more sessions than MaxSessions
// yields at most MaxSessions, the most recently active, and counts the rest.
func TestParseCapsSessions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n, limit      int
		wantKept      int
		wantTruncated int
	}{
		{n: 5, limit: 10, wantKept: 5},
		{n: 10, limit: 10, wantKept: 10},
		{n: 11, limit: 10, wantKept: 10, wantTruncated: 1},
		{n: 95, limit: 10, wantKept: 10, wantTruncated: 85},
		{n: MaxSessions + 7, limit: MaxSessions, wantKept: MaxSessions, wantTruncated: 7},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d_of_%d", tt.n, tt.limit), func(t *testing.T) {
			t.Parallel()
			res, err := ParseLimit(manyStore(tt.n, 0), tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Sessions) != tt.wantKept || res.Truncated != tt.wantTruncated {
				t.Fatalf("kept %d, truncated %d; want %d, %d", len(res.Sessions), res.Truncated, tt.wantKept, tt.wantTruncated)
			}
			oldest := time.Unix(t0800.Unix()+int64(tt.n-tt.wantKept), 0)
			for _, s := range res.Sessions {
				if s.LastActivity.Before(oldest) {
					t.Fatalf("kept %s active %v, older than the %d most recent", s.ID, s.LastActivity, tt.wantKept)
				}
			}
		})
	}
}

// TestParseDefaultCap: Parse (what doctor and the watcher use) applies
// MaxSessions.
func TestParseDefaultCap(t *testing.T) {
	t.Parallel()
	got, _, err := Parse(manyStore(MaxSessions+3, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != MaxSessions {
		t.Fatalf("Parse kept %d sessions, want the cap %d", len(got), MaxSessions)
	}
}

// TestWatcherOversizeStore: a store over MaxStoreSize is not read: one error
// wrapping ErrTooLarge that names the size and the cap; the last good
// snapshot stays (no snapshot follows); back under the cap, it is read.
func TestWatcherOversizeStore(t *testing.T) {
	t.Parallel()
	retry := 50 * time.Millisecond
	path := mkStore(t, storeJSON(t, sA))
	h := startWatcher(t, Options{Path: path, Retry: retry, Backstop: time.Hour})
	h.waitFor("first snapshot", snapshotWith(idA))

	big := manyStore(3, MaxStoreSize)
	writeAtomic(t, path, big)
	seen := h.waitFor("error", isErr)
	if len(seen) != 1 {
		t.Fatalf("want only the error, got %s", describeUpdates(seen))
	}
	err := seen[0].Err
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("error %v does not wrap ErrTooLarge", err)
	}
	for _, want := range []string{path, fmt.Sprint(len(big)), fmt.Sprint(MaxStoreSize)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	h.quiet(10 * retry) // retried, but neither a snapshot nor the error again

	writeAtomic(t, path, storeJSON(t, sA, sB))
	h.waitFor("snapshot after the store shrank", snapshotWith(idA, idB))
}

// TestWatcherTruncatedSnapshot: a snapshot cut at the cap says so.
func TestWatcherTruncatedSnapshot(t *testing.T) {
	t.Parallel()
	path := mkStore(t, manyStore(MaxSessions+2, 0))
	h := startWatcher(t, Options{Path: path})
	u := h.waitFor("snapshot", isSnapshot)[0]
	if len(u.Snapshot.Sessions) != MaxSessions || u.Snapshot.Truncated != 2 {
		t.Fatalf("snapshot of %d sessions, %d truncated; want %d, 2", len(u.Snapshot.Sessions), u.Snapshot.Truncated, MaxSessions)
	}
	if !strings.Contains(h.logs.String(), "truncated=2") {
		t.Errorf("no warning with the truncated count in the log:\n%s", h.logs.String())
	}
}

// TestLoadOversize: Load (doctor's read) refuses an oversize store by its
// size, before reading it.
func TestLoadOversize(t *testing.T) {
	t.Parallel()
	path := mkStore(t, manyStore(1, MaxStoreSize))
	if _, err := Load(path); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Load = %v, want ErrTooLarge", err)
	}
	res, err := Load(mkStore(t, manyStore(4, 0)))
	if err != nil || len(res.Sessions) != 4 {
		t.Fatalf("Load = %d sessions, %v; want 4", len(res.Sessions), err)
	}
}

// TestParseStreamOrder: streaming reads keys in file order, yet the most
// trusted wrapper decides wherever it stands, and entries beside a wrapper
// never count.
func TestParseStreamOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		want []string
	}{
		{"sessions after data", `{"data": [{"id": "from-data-0001"}], "sessions": [{"id": "from-sessions-1"}]}`, []string{"from-sessions-1"}},
		{"sessions before data", `{"sessions": [{"id": "from-sessions-1"}], "data": [{"id": "from-data-0001"}]}`, []string{"from-sessions-1"}},
		{"entry before a wrapper", `{"keyed-entry-0001": {"client": "x"}, "items": [{"id": "from-items-0001"}]}`, []string{"from-items-0001"}},
		{"entry after a wrapper", `{"items": [{"id": "from-items-0001"}], "keyed-entry-0001": {"client": "x"}}`, []string{"from-items-0001"}},
		{"map keyed by id", `{"keyed-entry-0001": {"client": "x"}, "version": 2, "meta": {"a": {}}}`, []string{"keyed-entry-0001"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _, err := Parse([]byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, s := range got {
				ids = append(ids, s.ID)
			}
			if fmt.Sprint(ids) != fmt.Sprint(tt.want) {
				t.Errorf("ids %v, want %v", ids, tt.want)
			}
		})
	}
}
