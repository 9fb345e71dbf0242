package beacon

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

const (
	// DefaultInterval is how often Watch re-checks that each client lives
	// when Options.Interval is zero.
	DefaultInterval = time.Second
	// debounce lets a write's burst of events (temp file written, renamed
	// over the beacon) settle into one read; burstCap bounds how long a
	// stream of events can postpone it, in debounce periods.
	debounce = 50 * time.Millisecond
	// idleBackstop: with no live client and the directory watched, the
	// directory is re-read only this often, in case an event was missed.
	idleBackstop = 30 * time.Second
	burstCap     = 10
)

// ErrNoDir means Options.Dir is empty or not absolute.
var ErrNoDir = errors.New("beacon: Options.Dir must be an absolute directory")

// Options configures Watch.
type Options struct {
	// Dir holds the beacons (the host profile's beacon directory under the
	// user's home). Required, absolute. It need not exist yet: the client
	// creates it on its first start.
	Dir string
	// Interval between liveness re-checks (and directory re-reads, the
	// backstop for missed events). Zero means DefaultInterval.
	Interval time.Duration
	// Logger receives warnings about files skipped and beacons removed.
	// Nil discards.
	Logger *slog.Logger
	// Hub shares the process's directory watch; nil: Watch starts its own.
	Hub *dirwatch.Hub
}

// Update is the set of live clients with a beacon, sorted by pid.
type Update struct {
	Clients []Client
}

// Watch sends the initial state to out, then one Update per change: a
// beacon written, changed or removed, or its process gone. It returns nil
// when ctx is done, and an error only for invalid Options. Beacons of dead
// processes are removed within an Interval of the death.
func Watch(ctx context.Context, opts Options, out chan<- Update) error {
	if err := opts.check(); err != nil {
		return err
	}
	l := newLoop(opts, os.Geteuid(), out)
	return l.run(ctx)
}

// Read is one look at Dir: the live clients, as Watch's first Update
// would report them (and, like Watch, it removes the beacons of dead
// ones). It is for a caller that must act before a Watch can be started
// and heard from; an error only for invalid Options or an ended ctx.
func Read(ctx context.Context, opts Options) ([]Client, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	out := make(chan Update, 1) // the first publish always sends, once
	if !newLoop(opts, os.Geteuid(), out).scan(ctx) {
		return nil, ctx.Err()
	}
	return (<-out).Clients, nil
}

// check reports invalid Options (ErrNoDir).
func (o Options) check() error {
	if o.Dir == "" || !filepath.IsAbs(o.Dir) {
		return ErrNoDir
	}
	return nil
}

// loop is Watch's state; only Watch's goroutine touches it.
type loop struct {
	dir      string
	hub      *dirwatch.Hub
	interval time.Duration
	log      *slog.Logger
	uid      int // the owner a beacon must have: the user the daemon runs as
	out      chan<- Update

	fw        *dirwatch.Watcher // nil when fsnotify is unavailable: Interval reads alone
	watched   string            // the directory under watch: Dir or its nearest ancestor
	addFailed bool

	debounce      *time.Timer
	debounceArmed bool
	burstStart    time.Time

	entries map[int32]*entry  // by pid: each beacon file as last read
	warned  map[string]string // by path: the problem last logged, so it is logged once
	sent    []Client
	sentAny bool
}

func newLoop(opts Options, uid int, out chan<- Update) *loop {
	l := &loop{dir: filepath.Clean(opts.Dir), hub: opts.Hub, interval: opts.Interval, log: opts.Logger, uid: uid, out: out,
		debounce: time.NewTimer(time.Hour), entries: map[int32]*entry{}, warned: map[string]string{}}
	l.debounce.Stop()
	if l.interval <= 0 {
		l.interval = DefaultInterval
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	return l
}

func (l *loop) run(ctx context.Context) error {
	fw, err := dirwatch.Open(ctx, l.hub)
	if err != nil {
		l.log.Warn("beacons: cannot watch for changes; reading the directory every interval", "dir", l.dir, "err", err)
	} else {
		l.fw = fw
		defer func() { _ = fw.Close() }()
	}
	defer l.debounce.Stop()
	l.setupWatch()
	if !l.scan(ctx) {
		return nil
	}
	tick := time.NewTimer(l.nextLook())
	defer tick.Stop()
	for {
		look := false
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-l.events():
			if !ok {
				l.lostNotify()
				continue
			}
			l.onEvent(ev)
		case err, ok := <-l.errors():
			if !ok {
				l.lostNotify()
				continue
			}
			l.onError(err)
		case <-l.debounce.C:
			l.debounceArmed, look = false, true
		case <-tick.C:
			l.setupWatch()
			look = true
		}
		if look {
			if !l.scan(ctx) {
				return nil
			}
			tick.Reset(l.nextLook())
		}
	}
}

// nextLook is when to look again without an event: every Interval while
// some client lives (a dead one's beacon goes within an Interval), or while
// change notification does not cover the directory; otherwise only as a
// backstop, since a new beacon comes with an event.
func (l *loop) nextLook() time.Duration {
	if len(l.entries) > 0 || l.fw == nil || l.watched == "" || l.addFailed {
		return l.interval
	}
	return max(l.interval, idleBackstop)
}

// lostNotify falls back to Interval reads when fsnotify closed under us.
func (l *loop) lostNotify() {
	l.log.Warn("beacons: change notification stopped; reading the directory every interval", "dir", l.dir)
	_ = l.fw.Close()
	l.fw, l.watched = nil, ""
}

// events and errors are fsnotify's channels, or nil (never ready) without it.
func (l *loop) events() <-chan fsnotify.Event {
	if l.fw == nil {
		return nil
	}
	return l.fw.Events
}

func (l *loop) errors() <-chan error {
	if l.fw == nil {
		return nil
	}
	return l.fw.Errors
}

// send delivers u unless ctx ends first; it reports whether it did.
func (l *loop) send(ctx context.Context, u Update) bool {
	select {
	case l.out <- u:
		return true
	case <-ctx.Done():
		return false
	}
}

// isMissing reports whether err says a path does not exist.
func isMissing(err error) bool { return errors.Is(err, fs.ErrNotExist) }
