package tsserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tailbuf"
)

// callTimeout bounds one call of the client; the SDK's own request timeout is 60 s.
const callTimeout = 90 * time.Second

// Client is testdata/tsservers/client.mjs: the plain TypeScript SDK client, unpatched,
// which keeps a dead session id like most hosts built on the SDK.
type Client struct {
	name   string // in failures: "ts client", "python-sdk 2.x client"
	cancel context.CancelFunc
	stdin  io.WriteCloser
	lines  chan string // OK, ERR, READY and BYE lines
	stderr *tailbuf.Buffer
	done   chan struct{}

	mu    sync.Mutex
	notes []string // NOTE lines: notifications the client received
}

// StartClient connects the client to url and waits until it is ready. It fails the
// test (never skips) when node or the npm packages are missing; the client is stopped
// when the test ends.
func StartClient(t testing.TB, url string) *Client {
	t.Helper()
	return startClient(t, url)
}

// StartBridgedClient is StartClient through mcp-remote: the client talks stdio to
// mcp-remote, which talks Streamable HTTP to url. HOME is a temp dir (mcp-remote keeps
// its auth files there).
func StartBridgedClient(t testing.TB, url string) *Client {
	t.Helper()
	return startClient(t, url, "--mcp-remote")
}

func startClient(t testing.TB, url string, flags ...string) *Client {
	t.Helper()
	node, dir := clientDeps(t)
	return StartLineClient(t, "ts client", node, dir, append([]string{"client.mjs", "--url", url}, flags...))
}

// clientDeps is node and client.mjs's directory; missing ones fail the test.
func clientDeps(t testing.TB) (node, dir string) {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	node, err = checkDeps(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return node, serverDir(root)
}

// StartLineClient runs another client that speaks client.mjs's line protocol (READY,
// then one OK or ERR line per `call`): bin with args in dir, HOME a temp dir. name says
// which client in failures. It waits until the client is ready and stops it when the
// test ends.
func StartLineClient(t testing.TB, name, bin, dir string, args []string) *Client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.WaitDelay = dir, 5*time.Second
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	c := &Client{name: name, cancel: cancel, lines: make(chan string, 16), stderr: &tailbuf.Buffer{Max: 64 << 10}, done: make(chan struct{})}
	cmd.Stderr = c.stderr
	stdout, err := cmd.StdoutPipe()
	if err == nil {
		c.stdin, err = cmd.StdinPipe()
	}
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		cancel()
		t.Fatalf("%s: %v", name, err)
	}
	go c.read(cmd, stdout)
	t.Cleanup(func() {
		cancel()
		<-c.done
		if t.Failed() {
			t.Logf("%s stderr:\n%s", name, c.stderr.String())
		}
	})
	if line := c.next(t, startTimeout); line != "READY" {
		t.Fatalf("%s did not connect: %q\nstderr:\n%s", name, line, c.stderr.String())
	}
	return c
}

// StartClientRefused runs client.mjs at url where its handshake is to be
// refused: it waits for the client to end without connecting and returns
// what it wrote to stderr. A client that connects fails the test.
func StartClientRefused(t testing.TB, url string) string {
	t.Helper()
	node, dir := clientDeps(t)
	cmd := exec.Command(node, "client.mjs", "--url", url)
	cmd.Dir, cmd.WaitDelay = dir, 5*time.Second
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader("quit\n")
	var stderr tailbuf.Buffer
	stderr.Max = 64 << 10
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if strings.Contains(string(out), "READY") {
		t.Fatalf("the client connected to %s", url)
	}
	if err == nil {
		t.Fatalf("the client ended well without connecting: %q", out)
	}
	return stderr.String()
}

func (c *Client) read(cmd *exec.Cmd, stdout io.Reader) {
	defer close(c.done)
	defer close(c.lines)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if note, ok := strings.CutPrefix(sc.Text(), "NOTE "); ok {
			c.mu.Lock()
			c.notes = append(c.notes, note)
			c.mu.Unlock()
			continue
		}
		c.lines <- sc.Text()
	}
	_, _ = io.Copy(io.Discard, stdout)
	_ = cmd.Wait()
}

func (c *Client) next(t testing.TB, within time.Duration) string {
	t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			t.Fatalf("%s exited; stderr:\n%s", c.name, c.stderr.String())
		}
		return line
	case <-time.After(within):
		t.Fatalf("%s said nothing within %v; stderr:\n%s", c.name, within, c.stderr.String())
		return ""
	}
}

// Call calls tool with no arguments and returns the client's line: "OK <json>" for a
// result, "ERR <message>" for an error.
func (c *Client) Call(t testing.TB, tool string) string {
	t.Helper()
	if _, err := fmt.Fprintf(c.stdin, "call %s\n", tool); err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	return c.next(t, callTimeout)
}

// CallOrExit is Call for a client that may end itself on the call: it returns the
// client's line, or exited true and no line when the client's process ended instead.
func (c *Client) CallOrExit(t testing.TB, tool string) (line string, exited bool) {
	t.Helper()
	if _, err := fmt.Fprintf(c.stdin, "call %s\n", tool); err != nil {
		return "", true // its stdin is closed: it has ended
	}
	select {
	case line, ok := <-c.lines:
		return line, !ok
	case <-time.After(callTimeout):
		t.Fatalf("%s said nothing within %v; stderr:\n%s", c.name, callTimeout, c.stderr.String())
		return "", false
	}
}

// Notes lists the notifications the client has received, by method.
func (c *Client) Notes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.notes...)
}
