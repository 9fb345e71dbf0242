package control

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/otheruser"
)

func TestMain(m *testing.M) {
	otheruser.Main()
	os.Exit(m.Run())
}

// refusingHandler is testHandler hearing of refused connections.
type refusingHandler struct {
	testHandler
	refused chan int
}

func (h *refusingHandler) Refused(uid int) { h.refused <- uid }

// The socket is 0600 in a private directory; made reachable by hand (or
// reached by root), the peer's credentials still keep another user out:
// closed unanswered, reported by uid, and the owner is served.
func TestOtherUserRefused(t *testing.T) {
	other := otheruser.New(t)
	dir, err := os.MkdirTemp("", "control")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	path := filepath.Join(dir, "c.sock")
	h := &refusingHandler{refused: make(chan int, 4)}
	startServe(t, path, h)
	for _, p := range []string{dir, path} {
		if err := os.Chmod(p, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	got := other.Dial("unix", path, "POST /heal HTTP/1.1\r\nHost: watchdog\r\nContent-Length: 0\r\n\r\n")
	if !strings.HasPrefix(got, "closed") {
		t.Errorf("uid %d's heal request: %s; want its connection closed unanswered", otheruser.UID, got)
	}
	if uid := receive(t, h.refused); uid != otheruser.UID {
		t.Errorf("refused uid %d, want %d", uid, otheruser.UID)
	}
	if calls := h.calls(); len(calls) != 0 {
		t.Errorf("heals done for the other user: %v", calls)
	}
	if _, err := Dial(path).Status(t.Context()); err != nil {
		t.Errorf("the owner's status: %v", err)
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
