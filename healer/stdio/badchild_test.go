//go:build linux

package stdio_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

// A server that exits at once every time: after CrashLoop exits within
// the window the restarts stop, and the host's request gets an error
// naming the server and its last stderr line; nothing hangs.
func TestACrashLoopStopsTheRestarts(t *testing.T) {
	r := start(t, []string{"-mode", "exit"})
	r.rawLine(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{"protocolVersion": legacy, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "h", "version": "1"}}})
	line := r.readLine(20 * time.Second)
	for _, want := range []string{`"id":1`, `"mem\" exited 5 times within 1m0s`, `exiting at once, as asked`, `"reason":"crash_loop"`} {
		if !strings.Contains(line, want) {
			t.Errorf("the answer to initialize: %s\nwant it to hold %s", line, want)
		}
	}
	g := r.waitKind(proxywire.StdioGaveUp)
	if g.Stderr != "stdioserver: exiting at once, as asked" {
		t.Errorf("gave_up stderr = %q", g.Stderr)
	}
	if n := len(r.servers()); n != 5 {
		t.Errorf("starts = %d, want 5", n)
	}
	r.rawLine(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
	if line := r.readLine(5 * time.Second); !strings.Contains(line, `"id":2`) || !strings.Contains(line, "crash_loop") {
		t.Errorf("a request after the give-up: %s", line)
	}
}

// A 100 MB line that is no JSON-RPC goes to stderr in pieces, never to
// the host, and the supervisor's memory stays bounded; the server works.
func TestABigLineOfGarbageGoesToStderr(t *testing.T) {
	out := runShimProcess(t, []string{"-mode", "bigline", "-size", fmt.Sprint(100 << 20)}, func(in *os.File, outR *bufio.Reader) {
		sendInit(t, in)
		line, err := outR.ReadString('\n')
		if err != nil || !strings.Contains(line, `"serverInfo"`) {
			t.Errorf("the first line the host got: %.200q, %v (want the initialize answer)", line, err)
		}
	})
	if out.stderrBytes < 100<<20 {
		t.Errorf("stderr got %d bytes, want the 100 MB line", out.stderrBytes)
	}
	if out.peakRSS > 40<<20 {
		t.Errorf("the supervisor's peak RSS relaying a 100 MB line = %d MB, want bounded (≤ 40 MB)", out.peakRSS>>20)
	}
}

// A 100 MB message reaches the host whole, relayed in pieces.
func TestABigMessageReachesTheHostWhole(t *testing.T) {
	// Bounded: relaying 100 MB holds what relaying 10 MB holds. Against a
	// run of its own (not a fixed figure), so the race detector's and a
	// busy machine's share of the resident set is in both.
	small := relayBig(t, 10<<20)
	big := relayBig(t, 100<<20)
	if big > small+8<<20 {
		t.Errorf("the supervisor's peak RSS relaying a 100 MB message = %d MB, a 10 MB one %d MB: it grows with the message", big>>20, small>>20)
	}
}

// relayBig has the test server send one message of size bytes through a
// supervisor process and returns that process's peak RSS.
func relayBig(t *testing.T, size int) int64 {
	t.Helper()
	out := runShimProcess(t, []string{"-mode", "bigjson", "-size", fmt.Sprint(size)}, func(in *os.File, outR *bufio.Reader) {
		line, err := outR.ReadString('\n')
		if err != nil || len(line) < size || !strings.HasPrefix(line, `{"jsonrpc":"2.0","method":"notifications/message"`) || !strings.HasSuffix(line, "\"}}\n") {
			t.Errorf("the big message: %d bytes, %v", len(line), err)
		}
		sendInit(t, in)
		if line, err := outR.ReadString('\n'); err != nil || !strings.Contains(line, `"serverInfo"`) {
			t.Errorf("after it: %.200q, %v", line, err)
		}
	})
	return out.peakRSS
}

// Lines that are no JSON-RPC are moved to stderr; the host sees only
// messages, and its calls work.
func TestGarbageOnStdoutIsMovedToStderr(t *testing.T) {
	r := start(t, []string{"-mode", "garbage"})
	cs := r.client(nil, legacy)
	if got, err := call(t, cs, "echo", map[string]any{"text": "ok"}); err != nil || got != "ok" {
		t.Fatalf("call: %q, %v", got, err)
	}
	waitFor(t, "the garbage line on stderr", func() bool {
		return strings.Contains(r.stderr.String(), "not JSON-RPC (moved here): Server listening... (a log line on stdout)")
	})
}

// A server that never reads its stdin: a message it does not take within
// WriteWait is answered with an error, and its hang is said; nothing
// hangs.
func TestAServerThatNeverReads(t *testing.T) {
	r := start(t, []string{"-mode", "noread"})
	big := strings.Repeat("y", 1<<20)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.rawLine(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{"name": "echo", "arguments": map[string]any{"text": big}}})
	}()
	line := r.readLine(20 * time.Second)
	if !strings.Contains(line, `"id":7`) || !strings.Contains(line, "has read nothing of its input") {
		t.Errorf("the answer to a message it never read: %.300s", line)
	}
	<-done
	if h := r.waitKind(proxywire.StdioHung); !strings.Contains(h.Detail, "it hangs") {
		t.Errorf("hung report: %q", h.Detail)
	}
}

// A hung server (a call and a ping unanswered) is said once; with
// RestartHung it is killed, the call gets the death's error, and the next
// call works on a new run.
func TestAHungServer(t *testing.T) {
	t.Run("said", func(t *testing.T) {
		r := start(t, nil)
		cs := r.client(nil, legacy)
		callAsync(t, cs, "freeze")
		if h := r.waitKind(proxywire.StdioHung); h.Method != "tools/call" || !strings.Contains(h.Detail, "it is left running") {
			t.Errorf("hung report: %+v", h)
		}
		if n := len(r.servers()); n != 1 {
			t.Errorf("starts = %d, want 1 (a hang is not restarted unless asked)", n)
		}
	})
	t.Run("restarted", func(t *testing.T) {
		r := start(t, nil, restartHung)
		cs := r.client(nil, legacy)
		if got, err := call(t, cs, "freeze", map[string]any{}); err == nil || !strings.Contains(err.Error(), "may or may not have run") {
			t.Fatalf("the hung call: %q %v, want the death's error (stderr %s; reports %v)", got, err, r.stderr, r.kinds())
		}
		if got, err := call(t, cs, "echo", map[string]any{"text": "back"}); err != nil || got != "back" {
			t.Fatalf("after the restart: %q, %v", got, err)
		}
	})
}

// readLine reads one line the host got, bounded.
func (r *rig) readLine(wait time.Duration) string {
	r.t.Helper()
	ch := make(chan string, 1)
	go func() {
		line, _ := r.hostReader().ReadString('\n')
		ch <- line
	}()
	select {
	case l := <-ch:
		return l
	case <-time.After(wait):
		r.t.Fatalf("no line for the host within %s", wait)
		return ""
	}
}

func (r *rig) hostReader() *bufio.Reader {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.br == nil {
		r.br = bufio.NewReaderSize(r.hostOut, 1<<20)
	}
	return r.br
}

func sendInit(t *testing.T, in *os.File) {
	t.Helper()
	_, err := fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}`)
	if err != nil {
		t.Fatal(err)
	}
}

// shimRun is what a supervisor process did.
type shimRun struct {
	stderrBytes int64
	peakRSS     int64
	pid         int
}

// runShimProcess runs the supervisor as a process of its own (this test
// binary, see TestMain) over the test server with args, hands the test
// its stdin and stdout, then closes its stdin and waits for it to end.
func runShimProcess(t *testing.T, args []string, talk func(in *os.File, out *bufio.Reader)) shimRun {
	t.Helper()
	cmd, in, out := shimProcess(t, args...)
	talk(in, out)
	run := shimRun{pid: cmd.Process.Pid, peakRSS: peakRSS(cmd.Process.Pid)}
	_ = in.Close()
	errBuf := cmd.Stderr.(*syncBuf)
	if err := cmd.Wait(); err != nil {
		t.Errorf("the supervisor process: %v (stderr: %s)", err, errBuf)
	}
	errBuf.mu.Lock()
	run.stderrBytes = errBuf.n
	errBuf.mu.Unlock()
	return run
}

// peakRSS is pid's peak resident set (VmHWM), in bytes.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb << 10
		}
	}
	return -1
}
