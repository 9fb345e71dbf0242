package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/testbed/bench/loadgen"
)

// The servers behind the proxy run in a process of their own, as real
// servers do: in the load generator's process a call straight to them
// would skip the wakeups across processes that every call through the
// proxy pays, and the ratio would measure the scheduler.

// upstream is a server process started by startUpstream: it printed its
// URL, and answers each line on its stdin with the connections it has
// accepted so far.
type upstream struct {
	cmd *exec.Cmd
	url string
	in  io.WriteCloser
	out *bufio.Reader
}

func startUpstream(ctx context.Context, name string) (*upstream, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self, "-mode", "serve", "-upstreams", name)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	u := &upstream{cmd: cmd, in: in, out: bufio.NewReader(outPipe)}
	if u.url, err = u.line(); err != nil {
		u.Close()
		return nil, fmt.Errorf("the %s server did not start: %w", name, err)
	}
	return u, nil
}

func (u *upstream) line() (string, error) {
	l, err := u.out.ReadString('\n')
	return strings.TrimSpace(l), err
}

// URL is the server's MCP endpoint.
func (u *upstream) URL() string { return u.url }

// Accepted is how many connections the server has accepted; -1 when it
// cannot tell (it died), which no goal passes with.
func (u *upstream) Accepted() int64 {
	if _, err := io.WriteString(u.in, "?\n"); err != nil {
		return -1
	}
	l, err := u.line()
	n, perr := strconv.ParseInt(l, 10, 64)
	if err != nil || perr != nil {
		return -1
	}
	return n
}

// Close ends the server process (its stdin closes) and waits for it.
func (u *upstream) Close() error {
	_ = u.in.Close()
	return u.cmd.Wait()
}

// serve is -mode serve: the server process of startUpstream.
func serve(ctx context.Context, name string) error {
	srv, err := loadgen.Start(ctx, name)
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Println(srv.URL())
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		fmt.Println(srv.Accepted())
	}
	return sc.Err()
}
