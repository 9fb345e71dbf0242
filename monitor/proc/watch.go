package proc

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// Defaults for Options.
const (
	// DefaultInterval is how often Watch looks when Options.Interval is zero.
	DefaultInterval = 2 * time.Second
	// DefaultMaxScanInterval caps the slowed-down scans while no host runs.
	DefaultMaxScanInterval = 16 * time.Second
)

// Update is one observation of the host.
type Update struct {
	// Running says whether a host process is there.
	Running bool
	// Host is the running host; when not Running, the host last seen
	// (zero if none has been).
	Host Host
	// Restarted: the host runs with a different pid or start time than the
	// previous running host, whether or not a down was seen in between.
	Restarted bool
}

// Options configures Watch.
type Options struct {
	// Target says which process is the host. Required.
	Target Target
	// Interval between looks. Zero means DefaultInterval.
	Interval time.Duration
	// MaxScanInterval: while no host is known, each fruitless scan of the
	// process table doubles the wait before the next one, from Interval up
	// to this, since a scan costs far more than checking a known pid. Zero
	// means DefaultMaxScanInterval; never below Interval.
	MaxScanInterval time.Duration
	// Logger receives scan failures. Nil discards.
	Logger *slog.Logger
	// Look, when it delivers, makes Watch look now and scan at Interval
	// again: the caller has a sign the host just started (a new session
	// of its client), and the backed-off scan would see it seconds late.
	// Nil: looks follow the timer alone.
	Look <-chan struct{}
	// Known delivers host processes the caller knows from elsewhere (the
	// patched client's beacon names its own pid, whose start time the
	// caller has checked), with PID and Started set. Watch adopts one that
	// is Alive as the host at once, whatever its name: reported up, or
	// Restarted when it differs from the current host. One that is not
	// alive is ignored. An adopted host is then checked like any other:
	// only its pid while it runs, so no scan by name; when it exits, it is
	// reported down and Target is looked for again. Nil: none.
	Known <-chan Host
}

// Watch sends the host's initial state to out, then one Update per change:
// up, down, or restarted. It returns nil when ctx is done, and an error
// only for an invalid Target. Failed looks are logged and change nothing,
// except that the running host found gone is reported down.
//
// While a host runs, each Interval re-checks only its pid. While none
// runs, the process table is scanned, first every Interval and then less
// often (see MaxScanInterval); losing a host restarts that at Interval. A
// host delivered on Options.Known is adopted at once (see there).
func Watch(ctx context.Context, opts Options, out chan<- Update) error {
	if err := opts.Target.validate(); err != nil {
		return err
	}
	w := newWatcher(opts)
	h, found, err := Find(ctx, w.target)
	if ctx.Err() != nil {
		return nil
	}
	w.report("find host", err)
	u, _ := w.state.observe(h, found)
	if !send(ctx, out, u) {
		return nil
	}
	timer := time.NewTimer(w.nextDelay())
	defer timer.Stop()
	look, known := opts.Look, opts.Known
	for {
		var u Update
		var changed bool
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
			u, changed = w.step(ctx)
		case _, ok := <-look:
			if !ok {
				look = nil // closed: it will never ask again
				continue
			}
			w.scanWait = w.interval
			timer.Stop() // since Go 1.23 no stale tick can follow
			u, changed = w.step(ctx)
		case h, ok := <-known:
			if !ok {
				known = nil
				continue
			}
			timer.Stop()
			u, changed = w.adopt(ctx, h)
		}
		if changed && !send(ctx, out, u) {
			return nil
		}
		timer.Reset(w.nextDelay())
	}
}

func send(ctx context.Context, out chan<- Update, u Update) bool {
	select {
	case out <- u:
		return true
	case <-ctx.Done():
		return false
	}
}

// watcher is Watch's loop state; it is owned by the Watch goroutine.
type watcher struct {
	target   Target
	log      *slog.Logger
	interval time.Duration
	maxScan  time.Duration
	scanWait time.Duration // the wait before the next scan while no host runs
	state    tracker
	lastErr  string // the last error logged, so a lasting failure logs once
}

func newWatcher(opts Options) *watcher {
	w := &watcher{target: opts.Target, log: opts.Logger, interval: opts.Interval, maxScan: opts.MaxScanInterval}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	if w.interval <= 0 {
		w.interval = DefaultInterval
	}
	if w.maxScan <= 0 {
		w.maxScan = DefaultMaxScanInterval
	}
	w.maxScan = max(w.maxScan, w.interval)
	w.scanWait = w.interval
	return w
}

// nextDelay is the wait before the next look: Interval while a host runs;
// otherwise the scan wait, which doubles each time up to maxScan.
func (w *watcher) nextDelay() time.Duration {
	if w.state.running {
		w.scanWait = w.interval
		return w.interval
	}
	d := w.scanWait
	w.scanWait = min(2*w.scanWait, w.maxScan)
	return d
}

// step does one interval's look: a liveness check of the known host, and a
// scan only when there is none (or it just went away).
func (w *watcher) step(ctx context.Context) (Update, bool) {
	if w.state.running {
		ok, err := Alive(ctx, w.state.cur)
		if ctx.Err() != nil {
			return Update{}, false
		}
		if err != nil {
			w.report("check host", err)
			return Update{}, false
		}
		if ok {
			w.report("", nil)
			return Update{}, false
		}
	}
	h, found, err := Find(ctx, w.target)
	if ctx.Err() != nil {
		return Update{}, false // shutting down: the look was cut short
	}
	w.report("find host", err)
	if err != nil && !w.state.running {
		return Update{}, false
	}
	// A failed scan right after the host vanished still reports it down.
	return w.state.observe(h, found && err == nil)
}

// adopt takes h, a host the caller knows, as the running host when it is
// alive. Its command line is read for Host.Cmdline; its start time is
// kept at the millisecond, as a scan would find it, so that later looks
// compare equal.
func (w *watcher) adopt(ctx context.Context, h Host) (Update, bool) {
	ok, err := Alive(ctx, h)
	if ctx.Err() != nil {
		return Update{}, false
	}
	if err != nil {
		w.report("check known host", err)
		return Update{}, false
	}
	if !ok {
		w.log.Debug("known host process is not running; ignored", "pid", h.PID)
		return Update{}, false
	}
	h.Started = time.UnixMilli(h.Started.UnixMilli())
	if full, found := hostOf(ctx, h.PID); found && full.same(h) {
		h = full
	}
	return w.state.observe(h, true)
}

// report logs err once per distinct failure; nil marks recovery.
func (w *watcher) report(what string, err error) {
	if err == nil {
		w.lastErr = ""
		return
	}
	if msg := err.Error(); msg != w.lastErr {
		w.lastErr = msg
		w.log.Warn("host process "+what+" failed", "err", err)
	}
}

// tracker turns looks into Updates. It holds no I/O so its rules can be
// tested on their own.
type tracker struct {
	running  bool
	cur      Host // the running host, or the last one seen
	seen     bool // some host has been seen, so a new one is a restart
	reported bool // the initial state has been returned
}

// observe records one look and returns the Update it means, and whether
// that is a change. The first call always reports a change, so Watch can
// send the initial state.
func (t *tracker) observe(h Host, found bool) (Update, bool) {
	first := !t.reported
	t.reported = true
	switch {
	case found && t.running && h.same(t.cur):
		return Update{Running: true, Host: t.cur}, first
	case found:
		restarted := t.seen && !h.same(t.cur)
		t.running, t.cur, t.seen = true, h, true
		return Update{Running: true, Host: h, Restarted: restarted}, true
	case t.running:
		t.running = false
		return Update{Running: false, Host: t.cur}, true
	default:
		return Update{Running: false, Host: t.cur}, first
	}
}

// Alive re-checks one known host: its pid still exists, has the same start
// time (not a reused pid) and is not a zombie. It reads only that pid, so
// it is cheap enough to ask before acting on the host's behalf.
func Alive(ctx context.Context, h Host) (bool, error) {
	p := &process.Process{Pid: h.PID}
	ms, err := p.CreateTimeWithContext(ctx)
	if err != nil {
		if exists, perr := process.PidExistsWithContext(ctx, h.PID); perr == nil && !exists {
			return false, nil
		}
		return false, err
	}
	if ms != h.Started.UnixMilli() {
		return false, nil
	}
	st, err := p.StatusWithContext(ctx)
	if err == nil && slices.Contains(st, process.Zombie) {
		return false, nil
	}
	return true, nil
}
