package follow

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

// Defaults for the zero values of Options.
const (
	DefaultMaxLine  = 1 << 20
	DefaultBackstop = 10 * time.Second
	// DefaultBackstopMax is what the default backstop's period grows to
	// while its re-scans find nothing the events missed.
	DefaultBackstopMax  = 5 * time.Minute
	DefaultDebounce     = 5 * time.Millisecond
	DefaultHistoryBytes = 64 << 20
)

const (
	// linesBuffer is the capacity of Lines(): enough to absorb a burst
	// while the consumer works, small enough that a stalled consumer
	// stalls reading instead of memory.
	linesBuffer = 1024
	// checkpointEvery is how often changed acks are written at most.
	checkpointEvery = time.Second
)

// Sentinel errors.
var (
	// ErrBadCheckpoint: the checkpoint file exists but cannot be used. The
	// caller may move it aside and call New again.
	ErrBadCheckpoint = errors.New("follow: bad checkpoint file")
	// ErrBadOptions: Options cannot work (relative or malformed glob).
	ErrBadOptions = errors.New("follow: bad options")
	// ErrLineTooLong is passed to Options.Warn for every skipped line.
	ErrLineTooLong = errors.New("follow: line longer than MaxLine skipped")
	// ErrNotDir: a glob's directory part names a file.
	ErrNotDir = errors.New("follow: not a directory")
	// ErrAlreadyRun: Run was called a second time.
	ErrAlreadyRun = errors.New("follow: Run called twice")
)

// Source is a set of log files under one tag.
type Source struct {
	Tag   string   // who writes them: "host" or a server name
	Globs []string // absolute, ~ already expanded; filepath.Match syntax
}

// Position is where a line ends in a file. Consumers persist it next to
// what they made of the line and pass it back as Options.Resume.
type Position struct {
	Path        string `json:"path"`
	Fingerprint string `json:"fingerprint"` // see the package doc
	Offset      int64  `json:"offset"`      // just after the line's newline
}

// Line is one complete line of a followed file.
type Line struct {
	Tag     string
	Text    []byte // without the newline; the receiver owns it
	Pos     Position
	History bool // existing content read on first sight, not new
}

// Options configure a Follower. Zero values mean the documented defaults.
type Options struct {
	Sources []Source
	// CheckpointFile keeps acked positions across restarts; "" keeps none.
	CheckpointFile string
	// Resume adds positions the consumer committed with its own output;
	// each file starts at the furthest of these and the checkpoint.
	Resume []Position
	// MaxLine is the longest line delivered, without newline (default
	// 1 MiB); longer lines are skipped and reported to Warn.
	MaxLine int
	// Backstop is the period of the full re-scan that catches missed
	// events and directories that became readable (default 10 s). While
	// re-scans find nothing, the period doubles up to BackstopMax; one
	// that finds something brings Backstop back. A period that grows
	// starts at three (the start's scan stands in for the first re-scan:
	// internal/backstop).
	Backstop time.Duration
	// BackstopMax caps that growth. Zero: DefaultBackstopMax when Backstop
	// is the default, else Backstop (a period set by hand stays as set).
	BackstopMax time.Duration
	// Debounce is the least time between two passes over changed files
	// (default 5 ms): the first event after a quiet spell is handled at
	// once, the rest of a burst together.
	Debounce time.Duration
	// HistoryBytes is how much of a file's existing tail is delivered as
	// History on first sight (default 64 MiB; negative: none).
	HistoryBytes int64
	// MaxOpenFiles caps the files held open; the rest are polled (package
	// doc, Descriptors). 0: the budget derived from RLIMIT_NOFILE;
	// negative: every file is polled. It never raises that budget.
	MaxOpenFiles int
	// Hub shares the process's directory watch; nil: Run starts its own.
	Hub *dirwatch.Hub
	// Logger gets debug and info messages; nil discards them.
	Logger *slog.Logger
	// Warn gets non-fatal problems (unreadable directory or file, skipped
	// line); nil sends them to Logger at warning level. It is called on
	// Run's goroutine, so it should return quickly.
	Warn func(tag, path string, err error)
}

// Follower follows the files of its sources. Create it with New.
type Follower struct {
	opts    Options
	log     *slog.Logger
	lines   chan Line
	acks    *acks
	known   *known // handed to Run
	started atomic.Bool
	scanned chan struct{} // closed when Run's start-up scan is done
	writeMu sync.Mutex    // one checkpoint write at a time
}

// New checks opts, fills in defaults and loads the checkpoint.
func New(opts Options) (*Follower, error) {
	if err := checkSources(opts.Sources); err != nil {
		return nil, err
	}
	opts = withDefaults(opts)
	loaded, err := loadCheckpoint(opts.CheckpointFile)
	if err != nil {
		return nil, err
	}
	f := &Follower{opts: opts, log: opts.Logger, lines: make(chan Line, linesBuffer), scanned: make(chan struct{})}
	for _, p := range opts.Resume {
		if err := p.validate(); err != nil {
			f.log.Warn("follow: ignoring resume position", "err", err)
			continue
		}
		loaded = append(loaded, p)
	}
	f.acks = newAcks(loaded)
	f.known = newKnown(loaded)
	return f, nil
}

func checkSources(srcs []Source) error {
	for _, s := range srcs {
		for _, g := range s.Globs {
			if !filepath.IsAbs(g) {
				return fmt.Errorf("%w: glob %q is not absolute", ErrBadOptions, g)
			}
			if _, err := filepath.Match(g, ""); err != nil {
				return fmt.Errorf("%w: glob %q: %w", ErrBadOptions, g, err)
			}
		}
	}
	return nil
}

func withDefaults(o Options) Options {
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.Backstop <= 0 {
		o.Backstop = DefaultBackstop
		if o.BackstopMax <= 0 {
			o.BackstopMax = DefaultBackstopMax
		}
	}
	o.BackstopMax = max(o.BackstopMax, o.Backstop)
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	if o.HistoryBytes == 0 {
		o.HistoryBytes = DefaultHistoryBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Lines delivers complete lines, in file order per file. It is closed when
// Run returns.
func (f *Follower) Lines() <-chan Line { return f.lines }

// Ack records that the consumer has durably handled everything up to and
// including the line ending at p. Only acked positions reach the checkpoint;
// without a CheckpointFile Ack does nothing. Safe to call from any
// goroutine, also after Run returned.
func (f *Follower) Ack(p Position) {
	if f.opts.CheckpointFile != "" {
		f.acks.ack(p)
	}
}

// Flush writes the checkpoint now if acks changed since the last write.
// Run writes it within a second of a change and when it returns; the consumer calls Flush
// once it is done after Run returned, so that its last acks are saved too.
func (f *Follower) Flush() error {
	if f.opts.CheckpointFile == "" {
		return nil
	}
	f.writeMu.Lock()
	defer f.writeMu.Unlock()
	ps, changed := f.acks.snapshot()
	if !changed {
		return nil
	}
	if err := writeCheckpoint(f.opts.CheckpointFile, ps); err != nil {
		f.acks.markDirty() // try again next time
		return err
	}
	return nil
}

// Run follows the files until ctx is done, then writes the checkpoint and
// closes Lines. It returns nil after ctx ends, or the error that kept it
// from starting, stopped it early or kept it from saving the checkpoint.
// Ready is closed once Run's start-up scan is done: every file that exists
// is open and positioned, so a line written after Ready is a live line.
func (f *Follower) Ready() <-chan struct{} { return f.scanned }

func (f *Follower) Run(ctx context.Context) error {
	if !f.started.CompareAndSwap(false, true) {
		return ErrAlreadyRun
	}
	defer close(f.lines)
	r, err := newRunner(ctx, f)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { f.checkpointLoop(ctx) })
	err = r.loop(ctx)
	cancel()
	wg.Wait()
	r.close()
	if ferr := f.Flush(); ferr != nil {
		err = errors.Join(err, fmt.Errorf("follow: final checkpoint: %w", ferr))
	}
	return err
}

// checkpointLoop writes the checkpoint at most every checkpointEvery, and
// only after a position changed: an idle follower never wakes for it. A
// failed write is tried again a checkpointEvery later.
func (f *Follower) checkpointLoop(ctx context.Context) {
	if f.opts.CheckpointFile == "" {
		return
	}
	lastErr := ""
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.acks.changed:
		}
		select { // gather what else changes within the interval
		case <-ctx.Done():
			return
		case <-time.After(checkpointEvery):
		}
		err := f.Flush()
		if err != nil && err.Error() != lastErr {
			f.log.Warn("follow: cannot save checkpoint; will retry", "err", err)
		}
		lastErr = ""
		if err != nil {
			lastErr = err.Error() // Flush marked the acks dirty again: the next turn retries
		}
	}
}

// warn reports a non-fatal problem.
func (f *Follower) warn(tag, path string, err error) {
	if f.opts.Warn != nil {
		f.opts.Warn(tag, path, err)
		return
	}
	f.log.Warn("follow: "+err.Error(), "tag", tag, "path", path)
}
