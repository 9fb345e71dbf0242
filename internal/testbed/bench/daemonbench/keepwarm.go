package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/host"
)

// keepWarmTimeout is the servers' idle timeout in the keep-warm bench.
const keepWarmTimeout = 3 * time.Second

type warmServer struct {
	srv  *demoserver.Server
	warm bool
}

// keepWarm counts expiries over `timeouts` idle timeouts with keep-warm on
// (goal: none) and off (goal: every one). Each server has one session of
// the host's client that never calls on its own; with keep-warm off the
// client reconnects after each expiry so the next timeout can expire too.
func (b *bench) keepWarm(ctx context.Context, timeouts, servers int) error {
	half := servers / 2
	window := keepWarmTimeout * time.Duration((timeouts+half-1)/half)
	var all []warmServer
	cfg := hostTable
	for i := range servers {
		store := filepath.Join(b.dir, fmt.Sprintf("s%d", i), "mcp-sessions.json")
		if err := os.MkdirAll(filepath.Dir(store), 0o700); err != nil {
			return err
		}
		srv, err := demoserver.Start(ctx, demoserver.Options{IdleTimeout: keepWarmTimeout, StorePath: store})
		if err != nil {
			return err
		}
		defer srv.Close()
		w := warmServer{srv: srv, warm: i < half}
		all = append(all, w)
		cfg += serverTable(fmt.Sprintf("s%d", i), srv.URL(), nil, store) +
			fmt.Sprintf("keep_warm = %v\n", w.warm)
	}
	cfg = replaceIdle(cfg, keepWarmTimeout)
	d, err := b.start(ctx, cfg)
	if err != nil {
		return err
	}
	defer d.stop()
	per := int(window / keepWarmTimeout)
	total := per * half
	var without atomic.Int64
	var warmFailed atomic.Int64
	var wg sync.WaitGroup
	for _, w := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w.warm {
				if !holdWarm(ctx, w.srv, window) {
					warmFailed.Add(1)
				}
				return
			}
			without.Add(int64(expireRepeatedly(ctx, w.srv, per)))
		}()
	}
	wg.Wait()
	expiredWarm := 0
	for _, w := range all {
		if w.warm {
			for _, e := range w.srv.Ended() {
				if e.Reason == demoserver.ReasonIdleTimeout {
					expiredWarm++
				}
			}
		}
	}
	fmt.Printf("| keep-warm: expiries over %d idle timeouts of a %s-timeout server | with %d (and %d failed calls), without %d | 0 with, every one without | %s |\n",
		total, keepWarmTimeout, expiredWarm, warmFailed.Load(), without.Load(),
		verdict(expiredWarm == 0 && warmFailed.Load() == 0 && without.Load() == int64(total)))
	return nil
}

// holdWarm connects, never calls during window, then calls once: true when
// that call succeeds on the same session.
func holdWarm(ctx context.Context, srv *demoserver.Server, window time.Duration) bool {
	cs, err := demoserver.Connect(ctx, srv.URL(), host.Default().ClientName)
	if err != nil {
		return false
	}
	defer cs.Close()
	select {
	case <-time.After(window):
	case <-ctx.Done():
		return false
	}
	_, err = cs.CallTool(ctx, echoCall())
	return err == nil
}

// expireRepeatedly opens a session and leaves it alone, sessions times
// over; it returns how many of them the server ended for idleness. A
// session still open three timeouts after it was opened does not count.
func expireRepeatedly(ctx context.Context, srv *demoserver.Server, sessions int) int {
	n := 0
	for range sessions {
		cs, err := demoserver.Connect(ctx, srv.URL(), host.Default().ClientName)
		if err != nil {
			return n
		}
		id, giveUp := cs.ID(), time.Now().Add(3*keepWarmTimeout)
		for ctx.Err() == nil && time.Now().Before(giveUp) && !endedIdle(srv, id) {
			time.Sleep(20 * time.Millisecond)
		}
		if endedIdle(srv, id) {
			n++
		}
		cs.Close()
	}
	return n
}

func endedIdle(srv *demoserver.Server, id string) bool {
	for _, e := range srv.Ended() {
		if e.ID == id && e.Reason == demoserver.ReasonIdleTimeout {
			return true
		}
	}
	return false
}
