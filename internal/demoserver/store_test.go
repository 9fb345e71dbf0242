package demoserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestStoreAlwaysValidJSON reads the store as fast as it can while sessions
// come, work and go: every read must be a complete document.
func TestStoreAlwaysValidJSON(t *testing.T) {
	t.Parallel()
	s := startTest(t, Options{IdleTimeout: time.Hour})

	ctx, stop := context.WithCancel(t.Context())
	var reads, bad atomic.Int64
	var firstBad atomic.Value
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if err := checkStoreDoc(s.store); err != nil {
				if bad.Add(1) == 1 {
					firstBad.Store(err.Error())
				}
			}
			reads.Add(1)
		}
	}()

	var seen atomic.Int64
	var clients sync.WaitGroup
	for i := range 4 {
		clients.Go(func() {
			for j := range 5 {
				cs, err := Connect(ctx, s.URL(), "client-"+strconv.Itoa(i))
				if err != nil {
					t.Errorf("Connect: %v", err)
					return
				}
				if _, err := callEcho(ctx, cs, strconv.Itoa(j)); err != nil {
					t.Errorf("echo: %v", err)
				}
				seen.Add(1)
				_ = cs.Close()
			}
		})
	}
	clients.Wait()
	waitFor(t, "store empty", func() bool { return len(storeIDs(t, s.store)) == 0 })
	stop()
	wg.Wait()

	if n := bad.Load(); n > 0 {
		t.Fatalf("%d of %d reads were not a valid store; first: %v", n, reads.Load(), firstBad.Load())
	}
	if reads.Load() < 10 || seen.Load() != 20 {
		t.Fatalf("too little happened: %d reads, %d sessions", reads.Load(), seen.Load())
	}
	if got := len(s.Ended()); got != 20 {
		t.Errorf("Ended has %d sessions, want 20", got)
	}
}

// checkStoreDoc reads the store once; the error says why what it read is
// not a complete store document, followed by what it read.
func checkStoreDoc(path string) error {
	b, err := os.ReadFile(path)
	var doc storeFile
	if err == nil {
		err = json.Unmarshal(b, &doc)
	}
	if err == nil && doc.Sessions == nil {
		err = strconv.ErrSyntax // "sessions" missing or null
	}
	if err != nil {
		return fmt.Errorf("%v: %s", err, b)
	}
	return nil
}

func TestEncodeStore(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 7, 1, 12, 0, 0, 123456789, time.FixedZone("X", 3600))
	tests := []struct {
		name string
		live []entry
		want string
	}{
		{"empty", nil, `{"sessions":[]}`},
		{"one", []entry{{id: "abc", client: "dsh-mcp-client", created: t0, last: t0.Add(time.Second)}},
			`{"sessions":[{"id":"abc","client_name":"dsh-mcp-client",` +
				`"created_at":"2026-07-01T11:00:00.123456789Z","last_activity":"2026-07-01T11:00:01.123456789Z"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := encodeStore(tt.live)
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			_ = json.Unmarshal([]byte(tt.want), &want)
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			if string(gb) != string(wb) {
				t.Errorf("got %s\nwant %s", gb, wb)
			}
		})
	}
}
