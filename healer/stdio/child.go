package stdio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// child is one run of the server.
type child struct {
	gen     int
	cmd     *exec.Cmd
	pid     int
	started time.Time
	// in is the server's stdin; inMu keeps a message from being written
	// into the middle of another.
	inMu sync.Mutex
	in   *os.File
	wait time.Duration // Limits.WriteWait
	// out is its stdout as fromChild reads it; spin makes it spin while
	// an answer is due (nil: it does not spin).
	out  io.Reader
	spin *hotReader
	// written counts the bytes written to in; read is how many of them
	// the run had read when it died (what it never read did not run).
	written, read int64
	// drained is closed when its stdout has been read to the end, told
	// when its stderr has (its last line kept); exited when it has also
	// been reaped (status then says how it ended).
	drained, told, exited chan struct{}
	// handled is closed when the supervisor has dealt with its end.
	handled   chan struct{}
	status    string
	signalled bool // ended on purpose (the host went, or sent a signal)
}

// write sends one message to the server.
func (c *child) write(line []byte) error {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	return c.writeLocked(append(line, '\n'))
}

// writeLocked writes p, waiting at most WriteWait for the server to read
// it. inMu held.
func (c *child) writeLocked(p []byte) error {
	_ = c.in.SetWriteDeadline(time.Now().Add(c.wait))
	n, err := c.in.Write(p)
	c.written += int64(n)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return errNotReading
	}
	return err
}

// errNotReading: the server read nothing of a message for WriteWait.
var errNotReading = errors.New("the server does not read its input")

// signal sends sig to the server's process group.
func (c *child) signal(sig syscall.Signal) {
	if c.pid > 0 {
		_ = syscall.Kill(-c.pid, sig)
	}
}

// spawn starts a run of the server with the pipes the supervisor reads.
func (s *Supervisor) spawn(gen int) (*child, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdio: a pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("stdio: a pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("stdio: a pipe: %w", err)
	}
	cmd := exec.Command(s.opt.Command[0], s.opt.Command[1:]...)
	cmd.Env, cmd.Dir = s.opt.Env, s.opt.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = procAttr()
	err = cmd.Start()
	closeAll(inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, fmt.Errorf("cannot start %s: %w", s.opt.Command[0], err)
	}
	c := &child{gen: gen, cmd: cmd, pid: cmd.Process.Pid, started: s.now(), in: inW, wait: s.lim.WriteWait,
		drained: make(chan struct{}), told: make(chan struct{}), exited: make(chan struct{}), handled: make(chan struct{})}
	c.out, c.spin = newHotReader(outR)
	s.wg.Add(3)
	go s.fromChild(c, outR)
	go s.stderrOf(c, errR)
	go s.reap(c, outR)
	return c, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// reap waits for the run to end, ends what it left in its process group,
// waits for its stdout to drain (an answer it wrote before dying is
// relayed before its death is handled) and its stderr (its last line is
// what the death is told with), and hands the death on.
func (s *Supervisor) reap(c *child, stdout *os.File) {
	defer s.wg.Done()
	err := c.cmd.Wait()
	c.signal(syscall.SIGKILL)
	grace := time.NewTimer(s.lim.Grace)
	defer grace.Stop()
	select {
	case <-c.drained:
		select {
		case <-c.told:
		case <-grace.C: // held open outside the group: its last line so far
		}
	case <-grace.C:
		_ = stdout.Close() // something outside the group holds its stdout open
		<-c.drained
	}
	c.inMu.Lock() // a write under way ends first (see toServer)
	c.read = c.written - unread(c.in)
	_ = c.in.Close()
	c.inMu.Unlock()
	c.status = exitWords(c.cmd.ProcessState, err)
	close(c.exited)
	s.died(c)
}

// exitWords says how a run ended: "exit status 1", "signal: killed".
func exitWords(ps *os.ProcessState, err error) string {
	if ps != nil {
		return ps.String()
	}
	if err != nil {
		return err.Error()
	}
	return "exited"
}

// stderrOf passes the server's stderr through and keeps its last line.
func (s *Supervisor) stderrOf(c *child, r *os.File) {
	defer s.wg.Done()
	defer close(c.told)
	defer r.Close()
	br := bufio.NewReaderSize(r, 4<<10)
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(frag) > 0 {
			s.errOut.mu.Lock()
			_, _ = s.errOut.w.Write(frag)
			s.errOut.mu.Unlock()
			line = lastLine(line, frag)
			if bytes.HasSuffix(frag, []byte{'\n'}) {
				s.setLastStderr(line)
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			if len(bytes.TrimSpace(line)) > 0 {
				s.setLastStderr(line)
			}
			return
		}
	}
}

// maxStderrLine bounds the last stderr line kept for errors and reports.
const maxStderrLine = 512

// lastLine is the line being collected after frag came, bounded.
func lastLine(line, frag []byte) []byte {
	if len(line) > 0 && line[len(line)-1] == '\n' {
		line = line[:0]
	}
	room := maxStderrLine - len(line)
	if room > 0 {
		line = append(line, frag[:min(room, len(frag))]...)
	}
	if bytes.HasSuffix(frag, []byte{'\n'}) && (len(line) == 0 || line[len(line)-1] != '\n') {
		line = append(line, '\n')
	}
	return line
}

func (s *Supervisor) setLastStderr(line []byte) {
	t := string(bytes.TrimSpace(line))
	if t == "" {
		return
	}
	s.mu.Lock()
	s.lastStderr = t
	s.mu.Unlock()
}

// fromChild relays the server's messages to the host.
func (s *Supervisor) fromChild(c *child, r *os.File) {
	defer s.wg.Done()
	defer close(c.drained)
	defer r.Close()
	lr := newLineReader(c.out, s.lim.Whole)
	for {
		line, big, err := lr.next()
		if err != nil {
			return
		}
		if big {
			s.relayBigToHost(c, lr, line)
			continue
		}
		s.toHost(c, line)
	}
}

// maxServerRequests bounds the server's requests kept waiting for the
// host's answer: a host that never answers does not grow the supervisor.
const maxServerRequests = 1024

// toHost handles one whole message from the server.
func (s *Supervisor) toHost(c *child, line []byte) {
	f := scan(line)
	switch {
	case len(bytes.TrimSpace(line)) == 0:
		return
	case !f.Object && !f.Batch:
		s.notJSON(line)
		return
	case f.Response() && s.internalAnswer(f, line):
		return
	case f.Response():
		s.answered(f, line)
	case f.Request():
		s.mu.Lock()
		if len(s.serverReqs) >= maxServerRequests {
			for id := range s.serverReqs { // one the host never answered
				delete(s.serverReqs, id)
				break
			}
		}
		s.serverReqs[string(f.ID)] = c.gen
		s.mu.Unlock()
	}
	if err := s.hostOut.line(line); err != nil {
		s.hostGone()
		return
	}
	s.hostSpin.expect() // the host's next message is often due
}

// relayBigToHost relays a message too long to hold whole, as it comes.
func (s *Supervisor) relayBigToHost(c *child, lr *lineReader, head []byte) {
	var sc scanner
	sc.feed(head)
	if !sc.f.Object && !sc.f.Batch {
		s.errOut.mu.Lock()
		defer s.errOut.mu.Unlock()
		fmt.Fprintf(s.errOut.w, "watchdog stdio: %s wrote a line to stdout that is not JSON-RPC (moved here): ", s.name())
		_, _ = s.errOut.w.Write(head)
		_ = lr.rest(func(p []byte) error { _, err := s.errOut.w.Write(p); return err })
		_, _ = s.errOut.w.Write([]byte{'\n'})
		return
	}
	s.hostOut.mu.Lock()
	_, werr := s.hostOut.w.Write(head)
	err := lr.rest(func(p []byte) error {
		sc.feed(p)
		if werr != nil {
			return werr
		}
		_, werr = s.hostOut.w.Write(p)
		return werr
	})
	if werr == nil {
		_, werr = s.hostOut.w.Write([]byte{'\n'})
	}
	s.hostOut.mu.Unlock()
	if werr != nil || (err != nil && !errors.Is(err, io.EOF)) {
		if werr != nil {
			s.hostGone()
		}
	}
	if f := sc.done(); f.Response() {
		s.answered(f, nil)
	}
}

// notJSON moves a line the server wrote to stdout that is no message to
// stderr: a host's JSON-RPC reader would choke on it.
func (s *Supervisor) notJSON(line []byte) {
	s.errOut.mu.Lock()
	defer s.errOut.mu.Unlock()
	fmt.Fprintf(s.errOut.w, "watchdog stdio: %s wrote a line to stdout that is not JSON-RPC (moved here): %s\n", s.name(), line)
}
