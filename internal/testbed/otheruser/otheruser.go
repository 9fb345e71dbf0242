// Package otheruser runs a client as another local user (uid and gid
// 65534, nobody), for the tests that prove a listener serves only the
// user the watchdog runs as. The client is the test binary itself,
// started again with an environment that makes Main take over: call Main
// first in the package's TestMain.
package otheruser

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// UID is the user the client runs as (nobody); its gid is the same.
const UID = 65534

const (
	envDial = "WATCHDOG_OTHERUSER_DIAL" // "network address"
	envSend = "WATCHDOG_OTHERUSER_SEND" // bytes to write once connected
	timeout = 20 * time.Second
)

// Main is the client when this process was started as one: it dials,
// sends, prints what came back and exits. Otherwise it returns at once.
func Main() {
	dial := os.Getenv(envDial)
	if dial == "" {
		return
	}
	network, addr, _ := strings.Cut(dial, " ")
	fmt.Println(client(network, addr, os.Getenv(envSend)))
	os.Exit(0)
}

// client says what the listener did: "answered: <first line>",
// "closed: <error>" (the connection ended before any answer) or
// "dial failed: <error>".
func client(network, addr, send string) string {
	c, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return "dial failed: " + err.Error()
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(c, send); err != nil {
		return "closed: " + err.Error()
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if line != "" {
		return "answered: " + strings.TrimSpace(line)
	}
	return "closed: " + err.Error()
}

// Client starts clients as uid 65534 from a copy of the test binary that
// user may execute (the build's own directory is private).
type Client struct {
	t   testing.TB
	bin string
}

// New copies the test binary for the clients. It skips the test when
// the process cannot switch users (not root): CI runs the tests as root.
func New(t testing.TB) *Client {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("not root: cannot start a client as another user (uid 65534); CI runs the tests as root")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "otheruser")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	bin := filepath.Join(dir, "client")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(self, bin); err != nil {
		t.Fatal(err)
	}
	return &Client{t: t, bin: bin}
}

// Dial connects to addr as uid 65534, writes send and reports what came
// back (see client): "answered: HTTP/1.1 200 OK", "closed: EOF", ...
func (c *Client) Dial(network, addr, send string) string {
	c.t.Helper()
	cmd := exec.Command(c.bin)
	cmd.Dir = filepath.Dir(c.bin)
	cmd.Env = []string{envDial + "=" + network + " " + addr, envSend + "=" + send}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: UID, Gid: UID}}
	out, err := cmd.Output()
	if err != nil {
		c.t.Fatalf("the client as uid %d: %v (%s)", UID, err, out)
	}
	return strings.TrimSpace(string(out))
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
