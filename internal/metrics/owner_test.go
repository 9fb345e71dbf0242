package metrics

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/otheruser"
)

func TestMain(m *testing.M) {
	otheruser.Main()
	os.Exit(m.Run())
}

// Metrics name the configured servers: another local user's scrape is
// closed unanswered and reported by its uid; the owner's is served.
func TestOtherUserRefused(t *testing.T) {
	other := otheruser.New(t)
	refused := make(chan int, 4)
	m := NewWith(&Options{Servers: []string{"secret-project"}, Refused: func(uid int) { refused <- uid }})
	url := serveForTest(t, m)
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/metrics")
	got := other.Dial("tcp", addr, "GET /metrics HTTP/1.1\r\nHost: "+addr+"\r\nConnection: close\r\n\r\n")
	if !strings.HasPrefix(got, "closed") {
		t.Errorf("uid %d's scrape: %s; want its connection closed unanswered", otheruser.UID, got)
	}
	if uid := receive(t, refused); uid != otheruser.UID {
		t.Errorf("refused uid %d, want %d", uid, otheruser.UID)
	}
	if body := scrapeRaw(t, url); !strings.Contains(body, "secret-project") {
		t.Errorf("the owner's scrape lacks the server: %q", body)
	}
}

// receive waits for the refusal the listener reports after it closed the
// connection, failing the test when none comes.
func receive(t *testing.T, refused <-chan int) int {
	t.Helper()
	select {
	case uid := <-refused:
		return uid
	case <-time.After(10 * time.Second):
		t.Fatal("no refusal reported")
		return 0
	}
}
