package follow

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Tests that need a process of their own re-execute the test binary with
// childEnv set; TestMain then runs the child instead of the tests.
const (
	childEnv    = "FOLLOW_TEST_CHILD"
	childDirEnv = "FOLLOW_TEST_DIR"
	childOutEnv = "FOLLOW_TEST_OUT"
	childCkpEnv = "FOLLOW_TEST_CHECKPOINT"
)

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "consumer":
		os.Exit(consumerChild())
	case "printer":
		os.Exit(printerChild())
	case "printer-lowfd":
		os.Exit(lowFDChild())
	default:
		fmt.Fprintln(os.Stderr, "unknown child", os.Getenv(childEnv))
		os.Exit(2)
	}
}

// record is one line of the consumer child's output: the line and its
// position, written together.
type record struct {
	Text string   `json:"text"`
	Pos  Position `json:"pos"`
}

// consumerChild is a consumer that wants exactly-once delivery: it appends
// each line with its Position in one write, then acks; on start it passes
// its last committed positions back as Resume.
func consumerChild() int {
	dir, out := os.Getenv(childDirEnv), os.Getenv(childOutEnv)
	recs, err := readRecords(out, true)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	f, err := New(Options{
		Sources:        []Source{{Tag: "t", Globs: []string{filepath.Join(dir, "app.log*")}}},
		CheckpointFile: os.Getenv(childCkpEnv),
		Resume:         lastPositions(recs),
		Backstop:       200 * time.Millisecond,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	w, err := os.OpenFile(out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	runErr := make(chan error, 1)
	go func() { runErr <- f.Run(ctx) }()
	go func() {
		<-f.scanned
		fmt.Println("READY") // SIGTERM is handled from here on
	}()
	for l := range f.Lines() {
		b, _ := json.Marshal(record{Text: string(l.Text), Pos: l.Pos})
		if _, err := w.Write(append(b, '\n')); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		f.Ack(l.Pos)
	}
	if err := errors.Join(<-runErr, f.Flush(), w.Close()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// readRecords parses the consumer's output. A record cut short by a kill
// was never committed: repair drops it from the file.
func readRecords(path string, repair bool) ([]record, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	complete := data[:bytes.LastIndexByte(data, '\n')+1]
	if repair && len(complete) < len(data) {
		if err := os.Truncate(path, int64(len(complete))); err != nil {
			return nil, err
		}
	}
	var recs []record
	for _, line := range bytes.Split(complete, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var r record
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("record %q: %w", line, err)
		}
		recs = append(recs, r)
	}
	return recs, nil
}

func lastPositions(recs []record) []Position {
	last := map[ackKey]Position{}
	for _, r := range recs {
		k := keyOf(r.Pos)
		if r.Pos.Offset > last[k].Offset {
			last[k] = r.Pos
		}
	}
	out := make([]Position, 0, len(last))
	for _, p := range last {
		out = append(out, p)
	}
	return out
}

// printerChild follows FOLLOW_TEST_DIR/*.log and prints each line and each
// warning on stdout, for a parent that watches it from outside.
func printerChild() int {
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Printf(format+"\n", args...)
	}
	f, err := New(Options{
		Sources:  logGlob(os.Getenv(childDirEnv)),
		Backstop: 200 * time.Millisecond,
		Warn:     func(tag, path string, err error) { say("WARN %s %v", path, err) },
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	runErr := make(chan error, 1)
	go func() { runErr <- f.Run(ctx) }()
	for l := range f.Lines() {
		say("LINE %s", l.Text)
	}
	if err := <-runErr; err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// child is a running child process of the test binary.
type child struct {
	t      testing.TB
	cmd    *exec.Cmd
	stderr bytes.Buffer
	mu     sync.Mutex
	stdout []string
	read   chan struct{} // stdout fully read
}

func startChild(t testing.TB, bin, mode string, env []string, cred *syscall.Credential) *child {
	t.Helper()
	c := &child{t: t, read: make(chan struct{})}
	c.cmd = exec.Command(bin, "-test.run=^$")
	c.cmd.Env = append(os.Environ(), append(env, childEnv+"="+mode)...)
	c.cmd.Stderr = &c.stderr
	if cred != nil {
		c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	out, err := c.cmd.StdoutPipe()
	mustDo(t, err)
	mustDo(t, c.cmd.Start())
	go c.scan(out)
	t.Cleanup(func() { // a test that failed half-way leaves no child behind
		if c.cmd.ProcessState == nil {
			_ = c.cmd.Process.Kill()
			<-c.read
			_ = c.cmd.Wait()
		}
	})
	return c
}

func (c *child) scan(r io.Reader) {
	defer close(c.read)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		c.mu.Lock()
		c.stdout = append(c.stdout, sc.Text())
		c.mu.Unlock()
	}
}

func (c *child) waitOutput(what string, match func(string) bool) {
	c.t.Helper()
	waitUntil(c.t, what, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, l := range c.stdout {
			if match(l) {
				return true
			}
		}
		return false
	})
}

// kill ends the child with SIGKILL, as a crash or an OOM kill would.
func (c *child) kill() {
	c.t.Helper()
	_ = c.cmd.Process.Kill()
	<-c.read
	err := c.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		c.t.Fatalf("child did not die by SIGKILL: %v\nstderr: %s", err, c.stderr.String())
	}
}

// stop ends the child gracefully and expects a clean exit.
func (c *child) stop() {
	c.t.Helper()
	mustDo(c.t, c.cmd.Process.Signal(syscall.SIGTERM))
	<-c.read
	if err := c.cmd.Wait(); err != nil {
		c.t.Fatalf("child: %v\nstderr: %s", err, c.stderr.String())
	}
}

func hasPrefixFn(prefix string) func(string) bool {
	return func(s string) bool { return strings.HasPrefix(s, prefix) }
}
