package tsserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/tailbuf"
)

// process owns one node process: a context that kills it, and one goroutine that reads
// its stdout to EOF and then reaps it.
type process struct {
	cancel context.CancelFunc
	stderr *tailbuf.Buffer

	ready chan string   // the LISTENING URL, sent once
	done  chan struct{} // closed after the process has been reaped
	err   error         // the exit status; read only after done is closed
}

func startProcess(node, dir string, args []string, onLine func(string)) (*process, error) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second // never hang on a pipe after the kill
	p := &process{
		cancel: cancel,
		stderr: &tailbuf.Buffer{Max: 64 << 10},
		ready:  make(chan string, 1),
		done:   make(chan struct{}),
	}
	cmd.Stderr = p.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("start %s: %w", node, err)
	}
	go p.run(cmd, stdout, onLine)
	return p, nil
}

// run reads stdout to EOF before Wait, as os/exec requires for StdoutPipe.
func (p *process) run(cmd *exec.Cmd, stdout io.Reader, onLine func(string)) {
	defer close(p.done)
	sc := bufio.NewScanner(stdout)
	listening := false
	for sc.Scan() {
		line := sc.Text()
		// Not only the first line: a client that reconnects to a restarted
		// server on its old port can open a session (SESSION_START) before
		// the server has printed LISTENING.
		if !listening {
			if url, ok := strings.CutPrefix(line, "LISTENING "); ok {
				listening = true
				p.ready <- url
				continue
			}
		}
		onLine(line)
	}
	_, _ = io.Copy(io.Discard, stdout) // a scanner error leaves output unread
	p.err = cmd.Wait()
}

func (p *process) waitListening(timeout time.Duration) (string, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case url := <-p.ready:
		return url, nil
	case <-p.done:
		if p.err == nil {
			return "", errors.New("exited without printing LISTENING")
		}
		return "", fmt.Errorf("exited before listening: %w", p.err)
	case <-timer.C:
		return "", fmt.Errorf("no LISTENING line within %v", timeout)
	}
}

func (p *process) stop() {
	p.cancel()
	<-p.done
}
