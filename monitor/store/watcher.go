package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

// Defaults of Options.
const (
	DefaultDebounce = 20 * time.Millisecond
	DefaultRetry    = 250 * time.Millisecond
	DefaultBackstop = 10 * time.Second
	// DefaultBackstopMax is what the default backstop's period grows to
	// while its checks find nothing the events missed.
	DefaultBackstopMax = 5 * time.Minute
	// MaxStoreSize caps a read: a larger file is not read at all but
	// reported as an error wrapping ErrTooLarge, and the last good snapshot
	// stays. The real store is a few KB; a 50 MB one once cost the daemon
	// 800 MB, so 8 MiB leaves room without letting a file size the daemon.
	MaxStoreSize = 8 << 20
)

// ErrRunning is returned by Run when the Watcher is already running.
var ErrRunning = errors.New("store watcher already running")

// Update is one change of what the watcher knows. Exactly one of Snapshot,
// Gone and Err is set.
type Update struct {
	Path     string    // the store this is about
	Snapshot *Snapshot // a good read
	// Gone: the file (or its directory) does not exist. The sessions' state is
	// unknown; it does NOT mean they all expired.
	Gone bool
	// Err: the file exists but could not be read or parsed (it wraps
	// ErrNotJSON or ErrUnknownShape when it is a parse error, ErrTooLarge
	// when it is over MaxStoreSize). The last good
	// snapshot stays valid; the watcher retries until the file parses.
	Err error
}

// Options configure a Watcher. Zero values take the defaults.
type Options struct {
	Path     string        // the store; "" until SetPath gives one
	Debounce time.Duration // quiet time after a burst of events; default 20 ms
	Retry    time.Duration // re-read after a failed read; default 250 ms
	Backstop time.Duration // periodic check in case events were missed; default 10 s
	// BackstopMax: while checks find nothing, the period doubles up to
	// this, from three periods after the start (internal/backstop). Zero:
	// DefaultBackstopMax with the default Backstop, else Backstop (a
	// period set by hand stays as set).
	BackstopMax time.Duration
	Logger      *slog.Logger // nil: discard
	// Now stamps Snapshot.ReadAt; nil: time.Now. Timers use real time.
	Now func() time.Time
	// Hub shares the process's directory watch; nil: Run starts its own.
	Hub *dirwatch.Hub
}

// Watcher follows one session store file. SetPath may be called at any time,
// from any goroutine; Run runs one watch at a time.
type Watcher struct {
	opts    Options
	log     *slog.Logger
	running atomic.Bool

	mu      sync.Mutex
	path    string
	changed chan struct{} // signals Run that path changed; capacity 1
}

// NewWatcher returns a Watcher with the defaults filled in.
func NewWatcher(opts Options) *Watcher {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.Retry <= 0 {
		opts.Retry = DefaultRetry
	}
	if opts.Backstop <= 0 {
		opts.Backstop = DefaultBackstop
		if opts.BackstopMax <= 0 {
			opts.BackstopMax = DefaultBackstopMax
		}
	}
	opts.BackstopMax = max(opts.BackstopMax, opts.Backstop)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Watcher{
		opts:    opts,
		log:     log,
		path:    cleanPath(opts.Path),
		changed: make(chan struct{}, 1),
	}
}

// SetPath switches the watcher to another store file, for example the one
// the server names in its log. The next Update is about the new file.
func (w *Watcher) SetPath(p string) {
	p = cleanPath(p)
	w.mu.Lock()
	same := p == w.path
	w.path = p
	w.mu.Unlock()
	if same {
		return
	}
	select {
	case w.changed <- struct{}{}:
	default: // a signal is pending already; Run reads the latest path
	}
}

// Path returns the store file being watched ("" when none is known yet).
func (w *Watcher) Path() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.path
}

// Run watches the store until ctx is done, sending Updates to out: one at
// start about the current file (once a path is known), then one per change
// of content or state. Sends block until out takes them or ctx is done.
// Run returns nil when ctx is done, or an error if watching cannot start or
// the event source fails.
func (w *Watcher) Run(ctx context.Context, out chan<- Update) error {
	if !w.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer w.running.Store(false)
	fw, err := dirwatch.Open(ctx, w.opts.Hub)
	if err != nil {
		return fmt.Errorf("store watcher: start fsnotify: %w", err)
	}
	defer fw.Close()
	l := newLoop(w, fw, out)
	defer l.stopTimers()
	return l.run(ctx)
}

// cleanPath makes p absolute when it can, so it matches fsnotify's names.
func cleanPath(p string) string {
	if p == "" {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}
