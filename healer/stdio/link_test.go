//go:build linux

package stdio_test

import (
	"context"
	"net"
	"os"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/stdio"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

// A daemon that links to a supervisor hears first what it saw while none
// was there, then each report as it comes; the socket is 0600 and gone
// when the supervisor ends.
func TestALinkedDaemonHearsTheBacklogThenEachReport(t *testing.T) {
	dir := t.TempDir()
	link, err := stdio.Listen(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { defer close(served); link.Serve(ctx) }()
	link.Send(proxywire.Stdio{Kind: proxywire.StdioStarted, Server: "mem", Detail: "one"})
	link.Send(proxywire.Stdio{Kind: proxywire.StdioExited, Server: "mem", Detail: "two"})
	path := stdio.SocketPath(dir, os.Getpid())
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the socket: %v, %v (want mode 0600)", fi, err)
	}
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := proxywire.NewReader(conn)
	for _, want := range []string{"one", "two"} {
		if m, err := r.Read(); err != nil || m.Stdio == nil || m.Stdio.Detail != want {
			t.Fatalf("read %+v, %v; want the backlog's %q", m.Stdio, err, want)
		}
	}
	link.Send(proxywire.Stdio{Kind: proxywire.StdioRestarted, Server: "mem", Detail: "three"})
	if m, err := r.Read(); err != nil || m.Stdio == nil || m.Stdio.Kind != proxywire.StdioRestarted {
		t.Fatalf("read %+v, %v; want the live report", m.Stdio, err)
	}
	conn.Close()
	if m := relink(t, path); m.Kind != "" {
		t.Errorf("a daemon linking again was told %q; nothing new was said, so nothing is sent again", m.Kind)
	}
	cancel()
	select {
	case <-served:
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not end with its context")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the socket is still there after the supervisor ended: %v", err)
	}
}

// relink links again and returns the first report, or a zero one when
// none comes within a moment (300 ms: what was kept is written at once).
func relink(t *testing.T, path string) proxywire.Stdio {
	t.Helper()
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	m, err := proxywire.NewReader(conn).Read()
	if err != nil || m.Stdio == nil {
		return proxywire.Stdio{}
	}
	return *m.Stdio
}

// A supervisor whose server only started is said to run to every daemon
// that links, a daemon restarted since included.
func TestEachNewDaemonHearsAServerRuns(t *testing.T) {
	dir := t.TempDir()
	link, err := stdio.Listen(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go link.Serve(ctx)
	link.Send(proxywire.Stdio{Kind: proxywire.StdioStarted, Server: "mem", Starts: 1})
	path := stdio.SocketPath(dir, os.Getpid())
	for i := range 2 {
		conn, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := proxywire.NewReader(conn).Read()
		conn.Close()
		if err != nil || m.Stdio == nil || m.Stdio.Kind != proxywire.StdioStarted {
			t.Fatalf("link %d: %+v, %v; want the start", i+1, m.Stdio, err)
		}
	}
}
