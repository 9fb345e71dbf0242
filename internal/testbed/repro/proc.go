package repro

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/tailbuf"
)

// proc owns one node process: a context that kills it, and one goroutine
// that reads its stdout to EOF, hands each line to onLine, then reaps it.
type proc struct {
	cancel context.CancelFunc
	stdin  io.WriteCloser
	stderr *tailbuf.Buffer
	pid    int
	done   chan struct{} // closed once the process has been reaped
	err    error         // exit status; read only after done is closed
}

// startProc runs node args in dir with env (nil: this process's).
func startProc(node, dir string, args, env []string, onLine func(line string, at time.Time)) (*proc, error) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second // never hang on a pipe after the kill
	p := &proc{cancel: cancel, stderr: &tailbuf.Buffer{Max: 64 << 10}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, fmt.Errorf("repro: stdout pipe: %w", err)
	}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		cancel()
		return nil, fmt.Errorf("repro: stdin pipe: %w", err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("repro: start %s: %w", node, err)
	}
	p.pid = cmd.Process.Pid
	go p.run(cmd, stdout, onLine)
	return p, nil
}

// run reads stdout to EOF before Wait, as os/exec requires for StdoutPipe.
func (p *proc) run(cmd *exec.Cmd, stdout io.Reader, onLine func(string, time.Time)) {
	defer close(p.done)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		onLine(sc.Text(), time.Now())
	}
	_, _ = io.Copy(io.Discard, stdout) // a scanner error leaves output unread
	p.err = cmd.Wait()
}

// exited waits up to d for the process to end by itself.
func (p *proc) exited(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

// stop kills the process (if it still runs) and waits for it. Safe to
// call more than once.
func (p *proc) stop() {
	p.cancel()
	<-p.done
}
