package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// stdioPayload pads each message to about 1 KiB, both ways.
var stdioPayload = strings.Repeat("x", 960)

// stdioPeer is a process the bench talks JSON-RPC lines to.
type stdioPeer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startPeer(ctx context.Context, argv ...string) (*stdioPeer, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &stdioPeer{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}, nil
}

// roundTrip sends request id and waits for its answer.
func (p *stdioPeer) roundTrip(id int) (time.Duration, error) {
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`+"\n", id, stdioPayload)
	t := time.Now()
	if _, err := io.WriteString(p.in, msg); err != nil {
		return 0, err
	}
	line, err := p.out.ReadString('\n')
	if err != nil {
		return 0, err
	}
	d := time.Since(t)
	if !strings.Contains(line, fmt.Sprintf(`"id":%d,`, id)) {
		return 0, fmt.Errorf("answer %.80q is not for %d", line, id)
	}
	return d, nil
}

func (p *stdioPeer) close() {
	_ = p.in.Close()
	_ = p.cmd.Wait()
}

// stdioResponder is the server behind both paths: it answers each request
// at once with about 1 KiB.
func stdioResponder() error {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return nil
		}
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil {
			continue
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}]}}`+"\n", m.ID, stdioPayload)
		if err := out.Flush(); err != nil {
			return err
		}
	}
}

// stdioBench: a 1 KiB request and its 1 KiB answer through a bare pipe to
// the responder and through `watchdog stdio` in front of the same
// responder, in rounds that alternate which path goes first; then the
// supervisor's resident memory and its CPU while idle.
func (b *bench) stdioBench(ctx context.Context, samples int, idle time.Duration) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	responder := []string{self, "-mode", "stdioresponder"}
	bare, err := startPeer(ctx, responder...)
	if err != nil {
		return err
	}
	defer bare.close()
	shim, err := startPeer(ctx, append([]string{b.bin, "stdio", "--server", "bench", "--state-dir", b.dir, "--"}, responder...)...)
	if err != nil {
		return err
	}
	defer shim.close()
	paths := []*stdioPeer{bare, shim}
	times := [2][]time.Duration{}
	const round = 500
	id := 0
	for r := 0; r < samples/round+1; r++ { // the first round warms up, unrecorded
		for k := range 2 {
			i := (r + k) % 2
			for range round {
				id++
				d, err := paths[i].roundTrip(id)
				if err != nil {
					return err
				}
				if r > 0 {
					times[i] = append(times[i], d)
				}
			}
		}
	}
	b50, b99 := percentiles(times[0])
	s50, s99 := percentiles(times[1])
	us := func(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d.Nanoseconds())/1e3) }
	verdict := verdict(s50-b50 <= 50*time.Microsecond && s99-b99 <= 500*time.Microsecond)
	fmt.Printf("| a 1 KiB request and its 1 KiB answer through `watchdog stdio` vs a bare pipe to the same server, %d round trips each, in alternating rounds | added p50 %s, p99 %s (bare: p50 %s, p99 %s; through: p50 %s, p99 %s) | added p50 ≤ 50 µs, p99 ≤ 500 µs | %s |\n",
		len(times[0]), us(s50-b50), us(s99-b99), us(b50), us(b99), us(s50), us(s99), verdict)
	return b.stdioIdle(ctx, shim, idle)
}

// stdioIdle reads the supervisor's memory after its work, and its CPU
// over idle with nothing to relay.
func (b *bench) stdioIdle(ctx context.Context, shim *stdioPeer, idle time.Duration) error {
	pid := shim.cmd.Process.Pid
	if err := sleepCtx(ctx, b.settle); err != nil {
		return err
	}
	cpu0, _, err := procStats(pid)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := sleepCtx(ctx, idle); err != nil {
		return err
	}
	cpu1, rss, err := procStats(pid)
	if err != nil {
		return err
	}
	pct := 100 * float64(cpu1-cpu0) / float64(time.Since(t0))
	anon, file, _ := rssSplit(pid)
	fmt.Printf("| `watchdog stdio` after the round trips, then idle %s: resident memory and CPU | RSS %.1f MB (anon %.1f, file %.1f), CPU %.4f%% | RSS ≤ 10 MB, CPU ≤ 0.01%% | %s |\n",
		idle, float64(rss)/1024, float64(anon)/1024, float64(file)/1024, pct, verdict(rss <= 10*1024 && pct <= 0.01))
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
