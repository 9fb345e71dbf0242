package stdio

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/peer"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

// Link is a supervisor's side of its wire to the daemon: it listens on
// STATE_DIR/stdio/<pid>.sock, and every daemon that connects (of this
// user only) is sent what the supervisor saw while none was there, then
// each report as it comes. Nothing waits on it: a report that finds no
// room is dropped, and a daemon slower than linkWriteTimeout is cut off.
type Link struct {
	ln   net.Listener
	path string

	mu      sync.Mutex
	backlog [][]byte
	links   map[chan []byte]struct{}
	// started is the first start's report while nothing else was said: a
	// daemon that links later (one restarted) is told the server runs,
	// which it cannot read back from its journal.
	started []byte
}

// Bounds of what a link keeps: a supervisor says a handful of things a
// crash, so these hold hours of a crash loop.
const (
	linkBacklog      = 256
	linkQueue        = 256
	linkWriteTimeout = 5 * time.Second
)

// SocketPath is the socket a supervisor of process pid listens on.
func SocketPath(stateDir string, pid int) string {
	return filepath.Join(stateDir, proxywire.StdioDir, strconv.Itoa(pid)+".sock")
}

// Listen opens the supervisor's socket in stateDir.
func Listen(stateDir string) (*Link, error) {
	path := SocketPath(stateDir, os.Getpid())
	ln, err := control.Listen(path)
	if err != nil {
		return nil, fmt.Errorf("stdio: the daemon's socket: %w", err)
	}
	return &Link{ln: peer.Own(ln, nil), path: path, links: map[chan []byte]struct{}{}}, nil
}

// Send hands r to every linked daemon, or keeps it for the next one.
func (l *Link) Send(r proxywire.Stdio) {
	line, err := proxywire.Encode(proxywire.Message{Stdio: &r})
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.started = nil
	if r.Kind == proxywire.StdioStarted {
		l.started = line
	}
	if len(l.links) == 0 {
		if len(l.backlog) == linkBacklog {
			l.backlog = l.backlog[1:]
		}
		l.backlog = append(l.backlog, line)
		return
	}
	for q := range l.links {
		select {
		case q <- line:
		default:
		}
	}
}

// Serve links every daemon that connects until ctx ends, then removes the
// socket.
func (l *Link) Serve(ctx context.Context) {
	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		_ = os.Remove(l.path)
	}()
	stop := context.AfterFunc(ctx, func() { _ = l.ln.Close() })
	defer stop()
	for {
		conn, err := l.ln.Accept()
		if err != nil {
			return
		}
		wg.Go(func() { l.serve(ctx, conn) })
	}
}

// serve writes one daemon its backlog, then the reports as they come.
func (l *Link) serve(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	q := make(chan []byte, linkQueue+linkBacklog)
	l.mu.Lock()
	if l.started != nil && len(l.backlog) == 0 {
		q <- l.started
	}
	for _, line := range l.backlog {
		q <- line
	}
	l.backlog = nil
	l.links[q] = struct{}{}
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		delete(l.links, q)
		l.mu.Unlock()
	}()
	gone := make(chan struct{})
	go func() { // a daemon says nothing on this wire: a read ends when it goes
		defer close(gone)
		_, _ = conn.Read(make([]byte, 1))
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-gone:
			return
		case line := <-q:
			_ = conn.SetWriteDeadline(time.Now().Add(linkWriteTimeout))
			if _, err := conn.Write(line); err != nil {
				return
			}
		}
	}
}
