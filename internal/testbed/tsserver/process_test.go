package tsserver

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// A session line may come before LISTENING (a client reconnecting to a
// restarted server on its old port): the URL must still be found, and the
// session line still delivered.
func TestListeningAfterASessionLine(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var lines []string
	script := "echo 'SESSION_START aaaa-1111 host'; echo 'LISTENING http://127.0.0.1:1/mcp'; sleep 30"
	p, err := startProcess("/bin/sh", t.TempDir(), []string{"-c", script}, func(l string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, l)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	url, err := p.waitListening(10 * time.Second)
	if err != nil || url != "http://127.0.0.1:1/mcp" {
		t.Fatalf("waitListening = %q, %v", url, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(lines, []string{"SESSION_START aaaa-1111 host"}) {
		t.Fatalf("lines before LISTENING: %q", lines)
	}
}
