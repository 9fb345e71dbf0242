package proc

import (
	"context"
	"testing"
	"time"
)

// watchFor runs Watch until the test ends and returns its updates.
func watchFor(t *testing.T, target Target) <-chan Update {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan Update)
	done := make(chan error, 1)
	go func() {
		done <- Watch(ctx, Options{Target: target, Interval: 50 * time.Millisecond, MaxScanInterval: 400 * time.Millisecond}, out)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Watch returned %v after cancel, want nil", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Watch did not return after cancel")
		}
	})
	return out
}

func next(t *testing.T, ch <-chan Update, what string) Update {
	t.Helper()
	select {
	case u := <-ch:
		return u
	case <-time.After(30 * time.Second):
		t.Fatalf("no update: waited for %s", what)
		return Update{}
	}
}

func TestWatchUpDownRestarted(t *testing.T) {
	tok := token(t, "wdproc-watch-")
	first := startStandIn(t, testExe(t), tok, "web")
	ch := watchFor(t, Target{Name: tok, Port: first.port})

	u := next(t, ch, "initial state")
	if !u.Running || u.Host.PID != first.pid() || u.Restarted {
		t.Fatalf("initial = %+v, want running pid %d, not restarted", u, first.pid())
	}

	first.kill()
	u = next(t, ch, "down")
	if u.Running || u.Host.PID != first.pid() {
		t.Fatalf("after kill = %+v, want down naming pid %d", u, first.pid())
	}

	second := startStandIn(t, testExe(t), tok, "web")
	u = next(t, ch, "up again")
	if !u.Running || u.Host.PID != second.pid() || !u.Restarted {
		t.Fatalf("after restart = %+v, want running pid %d, restarted", u, second.pid())
	}

	// Nothing changes while the host keeps running.
	select {
	case u := <-ch:
		t.Fatalf("update without a change: %+v", u)
	case <-time.After(300 * time.Millisecond):
	}
}

func TestWatchHostStartsLater(t *testing.T) {
	tok := token(t, "wdproc-later-")
	ch := watchFor(t, Target{Name: tok})

	if u := next(t, ch, "initial state"); u.Running || u.Host != (Host{}) {
		t.Fatalf("initial = %+v, want not running and no host", u)
	}
	s := startStandIn(t, testExe(t), tok, "web")
	u := next(t, ch, "up")
	if !u.Running || u.Host.PID != s.pid() || u.Restarted {
		t.Fatalf("up = %+v, want running pid %d, not restarted (first sight)", u, s.pid())
	}
}

func TestWatchRejectsBadTarget(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := Watch(ctx, Options{}, make(chan Update, 1)); err == nil {
		t.Fatal("Watch with an empty target returned nil")
	}
}

// Long: a table of 7 cases.
func TestTracker(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	a := Host{PID: 100, Started: t0}
	b := Host{PID: 200, Started: t0.Add(time.Minute)}
	aReused := Host{PID: 100, Started: t0.Add(time.Hour)} // same pid, new run
	none := Host{}

	type look struct {
		h     Host
		found bool
	}
	type want struct {
		u       Update
		changed bool
	}
	tests := []struct {
		name  string
		looks []look
		want  []want
	}{
		{"initial down is reported once",
			[]look{{none, false}, {none, false}},
			[]want{{Update{}, true}, {Update{}, false}}},
		{"initial up, steady",
			[]look{{a, true}, {a, true}},
			[]want{{Update{Running: true, Host: a}, true}, {Update{Running: true, Host: a}, false}}},
		{"up, down, up again as a new run",
			[]look{{a, true}, {none, false}, {none, false}, {b, true}},
			[]want{
				{Update{Running: true, Host: a}, true},
				{Update{Running: false, Host: a}, true},
				{Update{Running: false, Host: a}, false},
				{Update{Running: true, Host: b, Restarted: true}, true},
			}},
		{"replaced between two looks",
			[]look{{a, true}, {b, true}},
			[]want{{Update{Running: true, Host: a}, true}, {Update{Running: true, Host: b, Restarted: true}, true}}},
		{"pid reused by a new run is a restart",
			[]look{{a, true}, {aReused, true}},
			[]want{{Update{Running: true, Host: a}, true}, {Update{Running: true, Host: aReused, Restarted: true}, true}}},
		{"first sight after an initial down is no restart",
			[]look{{none, false}, {a, true}},
			[]want{{Update{}, true}, {Update{Running: true, Host: a}, true}}},
		{"same run back after a false down is no restart",
			[]look{{a, true}, {none, false}, {a, true}},
			[]want{
				{Update{Running: true, Host: a}, true},
				{Update{Running: false, Host: a}, true},
				{Update{Running: true, Host: a}, true},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tr tracker
			for i, l := range tc.looks {
				u, changed := tr.observe(l.h, l.found)
				if u != tc.want[i].u || changed != tc.want[i].changed {
					t.Errorf("look %d: %+v changed=%v, want %+v changed=%v", i, u, changed, tc.want[i].u, tc.want[i].changed)
				}
			}
		})
	}
}

func TestNextDelay(t *testing.T) {
	s := time.Second
	tests := []struct {
		name     string
		interval time.Duration
		maxScan  time.Duration
		running  []bool // host state before each delay is taken
		want     []time.Duration
	}{
		{"scans slow down while absent", s, 5 * s,
			[]bool{false, false, false, false, false},
			[]time.Duration{s, 2 * s, 4 * s, 5 * s, 5 * s}},
		{"a running host is checked every interval, and losing it restarts the backoff", s, 8 * s,
			[]bool{false, false, false, true, true, false, false},
			[]time.Duration{s, 2 * s, 4 * s, s, s, s, 2 * s}},
		{"defaults", 0, 0,
			[]bool{false, false, false, false, false, false, true},
			[]time.Duration{DefaultInterval, 2 * DefaultInterval, 4 * DefaultInterval, 8 * DefaultInterval, DefaultMaxScanInterval, DefaultMaxScanInterval, DefaultInterval}},
		{"max below interval is raised to it", 3 * s, s,
			[]bool{false, false},
			[]time.Duration{3 * s, 3 * s}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWatcher(Options{Target: Target{Port: 1}, Interval: tc.interval, MaxScanInterval: tc.maxScan})
			for i, running := range tc.running {
				w.state.running = running
				if got := w.nextDelay(); got != tc.want[i] {
					t.Errorf("delay %d = %v, want %v", i, got, tc.want[i])
				}
			}
		})
	}
}

// Look makes Watch look at once, even when its backed-off scan is an hour
// away: the daemon asks when a session of the host's client appears.
func TestWatchLooksWhenAsked(t *testing.T) {
	tok := token(t, "wdproc-look-")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, look := make(chan Update), make(chan struct{}, 1)
	go func() {
		_ = Watch(ctx, Options{Target: Target{Name: tok}, Interval: time.Hour, Look: look}, out)
	}()
	if u := next(t, out, "initial state"); u.Running {
		t.Fatalf("initial = %+v, want not running", u)
	}
	s := startStandIn(t, testExe(t), tok, "web")
	look <- struct{}{}
	if u := next(t, out, "up after the look"); !u.Running || u.Host.PID != s.pid() {
		t.Fatalf("after the look = %+v, want running pid %d", u, s.pid())
	}
}

// Known makes Watch adopt a host the caller knows (the beacon's pid) at
// once, although its name matches nothing, and only while it is alive.
func TestWatchAdoptsKnownHost(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, known := make(chan Update), make(chan Host)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = Watch(ctx, Options{Target: Target{Name: token(t, "wdproc-unnamed-")}, Interval: 50 * time.Millisecond,
			MaxScanInterval: time.Hour, Known: known}, out)
	}()
	defer func() { cancel(); <-done }()
	if u := next(t, out, "initial state"); u.Running {
		t.Fatalf("initial = %+v, want not running", u)
	}
	first := startStandIn(t, testExe(t), "standin", token(t, "wdproc-known-"))
	second := startStandIn(t, testExe(t), "standin", token(t, "wdproc-known-"))
	h1, h2 := mustHost(t, first.pid()), mustHost(t, second.pid())

	tests := []struct {
		name string
		send Host
		want *Update // nil: no update
	}{
		{"a known host that is not running is ignored", Host{PID: h1.PID, Started: h1.Started.Add(time.Hour)}, nil},
		{"a known host is adopted although its name does not match", h1, &Update{Running: true, Host: h1}},
		{"the same host again changes nothing", Host{PID: h1.PID, Started: h1.Started}, nil},
		{"another known host is a restart", h2, &Update{Running: true, Host: h2, Restarted: true}},
	}
	for _, tc := range tests {
		select {
		case known <- tc.send:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: Watch did not take the known host", tc.name)
		}
		if tc.want == nil {
			select {
			case u := <-out:
				t.Fatalf("%s: update %+v, want none", tc.name, u)
			case <-time.After(300 * time.Millisecond):
			}
			continue
		}
		if u := next(t, out, tc.name); u != *tc.want {
			t.Fatalf("%s: %+v, want %+v", tc.name, u, *tc.want)
		}
	}
	// The adopted host is watched like any other: its exit is reported.
	second.kill()
	if u := next(t, out, "down"); u.Running || u.Host != h2 {
		t.Fatalf("after the known host exited: %+v, want down naming %+v", u, h2)
	}
}

func mustHost(t *testing.T, pid int32) Host {
	t.Helper()
	h, ok := hostOf(context.Background(), pid)
	if !ok {
		t.Fatalf("cannot read pid %d", pid)
	}
	return h
}
