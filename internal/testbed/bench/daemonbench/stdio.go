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

// roundTrip sends request id and waits for its answer. Each message
// carries its send time (the wall clock, which every process here reads
// alike): the responder says how long the request took to reach it, and
// the answer's own time says how long it took back. Both are one
// message's latency, the goal's unit.
func (p *stdioPeer) roundTrip(id int) (there, back time.Duration, err error) {
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q},"sent":%d}}`+"\n",
		id, stdioPayload, time.Now().UnixNano())
	if _, err := io.WriteString(p.in, msg); err != nil {
		return 0, 0, err
	}
	line, err := p.out.ReadString('\n')
	got := time.Now().UnixNano()
	if err != nil {
		return 0, 0, err
	}
	var a struct {
		ID     int `json:"id"`
		Result struct {
			There int64 `json:"there"`
			Sent  int64 `json:"sent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &a); err != nil || a.ID != id {
		return 0, 0, fmt.Errorf("answer %.80q is not for %d: %v", line, id, err)
	}
	return time.Duration(a.Result.There), time.Duration(got - a.Result.Sent), nil
}

func (p *stdioPeer) close() {
	_ = p.in.Close()
	_ = p.cmd.Wait()
}

// stdioResponder is the server behind both paths: it answers each request
// at once with about 1 KiB, saying how long the request took to reach it
// and when the answer left.
func stdioResponder() error {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	for {
		line, err := in.ReadBytes('\n')
		got := time.Now().UnixNano()
		if err != nil {
			return nil
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Sent int64 `json:"sent"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil {
			continue
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}],"there":%d,"sent":%d}}`+"\n",
			m.ID, stdioPayload, got-m.Params.Sent, time.Now().UnixNano())
		if err := out.Flush(); err != nil {
			return err
		}
	}
}

// stdioPaths are the ways to the same responder the rounds take turns on:
// a bare pipe, a trivial relay (io.Copy both ways, nothing read: the
// floor of any process in the path), and `watchdog stdio`.
const (
	pathBare = iota
	pathRelay
	pathShim
	stdioPaths
)

// stdioBench: a 1 KiB request and its 1 KiB answer through each path to
// the same responder, in rounds that turn which path goes first; then the
// supervisor's resident memory and its CPU while idle.
func (b *bench) stdioBench(ctx context.Context, samples int, idle time.Duration) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	responder := []string{self, "-mode", "stdioresponder"}
	argv := [stdioPaths][]string{
		pathBare:  responder,
		pathRelay: append([]string{self, "-mode", "stdiorelay", "--"}, responder...),
		pathShim:  append([]string{b.bin, "stdio", "--server", "bench", "--state-dir", b.dir, "--"}, responder...),
	}
	var paths [stdioPaths]*stdioPeer
	for i, a := range argv {
		if paths[i], err = startPeer(ctx, a...); err != nil {
			return err
		}
		defer paths[i].close()
	}
	times, err := stdioRounds(paths, samples)
	if err != nil {
		return err
	}
	ways := stdioWays(times)
	b50, b99 := percentiles(times[pathBare])
	r50, r99 := percentiles(times[pathRelay])
	s50, s99 := percentiles(times[pathShim])
	us := func(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d.Nanoseconds())/1e3) }
	fmt.Printf("| one 1 KiB message, host to server or back, through `watchdog stdio` vs a bare pipe to the same server, %d messages each, in rounds that turn | added p50 %s, p99 %s (bare: p50 %s, p99 %s; through: p50 %s, p99 %s; added p50 to the server %s, back %s). A trivial relay (io.Copy both ways) adds p50 %s, p99 %s: the supervisor adds p50 %s over it | added p50 ≤ 50 µs, p99 ≤ 500 µs | %s |\n",
		len(times[pathBare]), us(s50-b50), us(s99-b99), us(b50), us(b99), us(s50), us(s99), us(ways[0]), us(ways[1]), us(r50-b50), us(r99-b99), us(s50-r50),
		verdict(s50-b50 <= 50*time.Microsecond && s99-b99 <= 500*time.Microsecond))
	return b.stdioIdle(ctx, paths[pathShim], idle)
}

// stdioWays is the supervisor's added p50 each way: to the server, and
// back (times alternate the two).
func stdioWays(times [stdioPaths][]time.Duration) (added [2]time.Duration) {
	for way := range 2 {
		var bare, shim []time.Duration
		for i := way; i < len(times[pathBare]); i += 2 {
			bare = append(bare, times[pathBare][i])
		}
		for i := way; i < len(times[pathShim]); i += 2 {
			shim = append(shim, times[pathShim][i])
		}
		b, _ := percentiles(bare)
		s, _ := percentiles(shim)
		added[way] = s - b
	}
	return added
}

// stdioRounds takes the paths in turns of 500 round trips (the first
// round warms up, unrecorded) and returns each path's message latencies,
// both ways.
func stdioRounds(paths [stdioPaths]*stdioPeer, samples int) ([stdioPaths][]time.Duration, error) {
	var times [stdioPaths][]time.Duration
	const round = 500
	id := 0
	for r := 0; r < samples/round+1; r++ {
		for k := range stdioPaths {
			i := (r + k) % stdioPaths
			for range round {
				id++
				there, back, err := paths[i].roundTrip(id)
				if err != nil {
					return times, err
				}
				if r > 0 {
					times[i] = append(times[i], there, back)
				}
			}
		}
	}
	return times, nil
}

// stdioRelay is the trivial relay: the command after "--" as its child,
// its pipes copied both ways, nothing read.
func stdioRelay(args []string) error {
	cmd := exec.Command(args[0], args[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _, _ = io.Copy(in, os.Stdin); _ = in.Close() }() // ends with the bench's stdin
	_, _ = io.Copy(os.Stdout, out)
	return cmd.Wait()
}

// stdioIdle reads the supervisor's CPU (every thread's, from schedstat)
// and wakeups over idle with nothing to relay, then its memory.
func (b *bench) stdioIdle(ctx context.Context, shim *stdioPeer, idle time.Duration) error {
	pid := shim.cmd.Process.Pid
	if err := sleepCtx(ctx, b.settle); err != nil {
		return err
	}
	cpu0, err := cpuTime(pid)
	if err != nil {
		return err
	}
	wake0, _ := contextSwitches(pid)
	t0 := time.Now()
	if err := sleepCtx(ctx, idle); err != nil {
		return err
	}
	cpu1, err := cpuTime(pid)
	if err != nil {
		return err
	}
	wake1, _ := contextSwitches(pid)
	window := time.Since(t0)
	pct := 100 * float64(cpu1-cpu0) / float64(window)
	_, rss, err := procStats(pid)
	if err != nil {
		return err
	}
	anon, file, _ := rssSplit(pid)
	fmt.Printf("| `watchdog stdio` after the round trips, then idle %s (after %s): CPU, wakeups, resident memory | CPU %.4f%%, %.0f wakeups/min, RSS %.1f MB (anon %.1f, file %.1f) | CPU ≤ 0.01%%, RSS ≤ 10 MB | %s |\n",
		idle, b.settle, pct, float64(wake1-wake0)/window.Minutes(), float64(rss)/1024, float64(anon)/1024, float64(file)/1024,
		verdict(rss <= 10*1024 && pct <= 0.01))
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
