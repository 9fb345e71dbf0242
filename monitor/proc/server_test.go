package proc

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// A server killed and not yet back: the process that served its port is
// gone, and that is a restart as of now (what vanishes meanwhile was taken
// by it, not by idleness), said once, not at every look.
func TestServerProcessGoneIsARestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := startStandIn(t, testExe(t), "listener")
	port := s.port
	p := NewServer("http://127.0.0.1:"+strconv.Itoa(port)+"/mcp", time.Now)
	first, gone := p.Started(ctx)
	if first.IsZero() || gone {
		t.Fatal("the serving process was not found")
	}
	if again, _ := p.Started(ctx); !again.Equal(first) {
		t.Fatalf("the same process read as started %v, then %v", first, again)
	}
	s.kill()
	mark, gone := p.Started(ctx)
	if !mark.After(first) || !gone {
		t.Fatalf("after the kill: %v (gone %v), want a restart mark after %v", mark, gone, first)
	}
	time.Sleep(10 * time.Millisecond)
	if again, gone := p.Started(ctx); !again.Equal(mark) || !gone {
		t.Fatalf("nobody serving yet: %v, then %v (gone %v); want the one mark", mark, again, gone)
	}
}

// The daemon's clock may run apart from the system's (the soak's clock
// jump skews only the daemon): the server's start is told in the daemon's
// clock, else a restart after a jump ahead reads as long before the pings
// its sessions got, and what the restart took is judged by idle time.
func TestServerStartIsInTheDaemonsClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	port := startStandIn(t, testExe(t), "listener").port
	var skew atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	skew.Store(int64(16 * time.Second))
	p := NewServer("http://127.0.0.1:"+strconv.Itoa(port)+"/mcp", now)
	started, _ := p.Started(ctx)
	if now := now(); started.Before(now.Add(-10*time.Second)) || started.After(now) {
		t.Fatalf("a server started just now read as started %v; the daemon's clock says %v", started, now)
	}
	skew.Store(0)
	if again, _ := p.Started(ctx); !again.Equal(started) {
		t.Fatalf("the same process read as started %v, then %v once the clock moved back", started, again)
	}
}

// A server's start orders it against its sessions' last activity: a
// restart read up to a second early (the process table counts from a
// boot time cut to the second) comes before a call its predecessor served
// just before it died, and what the restart took is judged by idle time
// (soak run 30: a killed session journaled as expired).
func TestServerStartIsNotReadEarly(t *testing.T) {
	t.Parallel()
	before := time.Now()
	port := startStandIn(t, testExe(t), "listener").port
	p := NewServer("http://127.0.0.1:"+strconv.Itoa(port)+"/mcp", time.Now)
	started, gone := p.Started(context.Background())
	if gone || started.IsZero() {
		t.Fatal("the serving process was not found")
	}
	const tick = 20 * time.Millisecond // /proc counts starts in hundredths
	if started.Before(before.Add(-tick)) {
		t.Fatalf("a server started after %v read as started %v, %v early", before, started, before.Sub(started))
	}
}
