// Package journal appends the watchdog's events to STATE_DIR/events.jsonl:
// one JSON object a line, file mode 0600, rotated by size. Session ids are
// masked here, the last point before they would leave the process.
package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// FileName is the journal's name inside the state directory.
const FileName = "events.jsonl"

// Defaults for Options.
const (
	DefaultMaxBytes = 10 << 20
	DefaultKeep     = 5
)

// Sentinel errors.
var (
	// ErrClosed is returned by Write after Close.
	ErrClosed = errors.New("journal: closed")
	// ErrUnencodable: the event itself cannot become a line (Encode), so
	// writing it again would fail again.
	ErrUnencodable = errors.New("journal: event cannot be encoded")
)

// Options tune rotation. Zero values take the defaults.
type Options struct {
	MaxBytes int64 // rotate when the file would grow past this
	Keep     int   // rotated files kept: events.jsonl.1 … .Keep
	// drill is empty in a release build; a build with the watchdogdebug
	// tag gives it the write-fault drill (fault_debug.go).
	//lint:ignore U1000 empty in a release build, the drills in a debug one
	drill
}

// Journal is safe for concurrent use.
type Journal struct {
	mu     sync.Mutex
	dir    string
	opts   Options
	f      *os.File // nil after a rotation that failed half-way, or Close
	size   int64
	closed bool
	torn   bool // a write was cut short: its fragment must be ended first
}

// Open opens (creating) the journal in dir, which is made 0700 if missing
// and must be private (fsutil.PrivateDir) before anything is opened in it.
func Open(dir string, opts Options) (*Journal, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Keep <= 0 {
		opts.Keep = DefaultKeep
	}
	if err := fsutil.PrivateDir(dir); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := &Journal{dir: dir, opts: opts}
	if err := j.openFile(); err != nil {
		return nil, err
	}
	return j, nil
}

// Path is the live journal file.
func (j *Journal) Path() string { return filepath.Join(j.dir, FileName) }

// openFile opens the live file as a state file (no link followed, a
// regular file, 0600 through the descriptor) and mends a torn last line.
// Read and write: the last byte is read back through the same descriptor.
func (j *Journal) openFile() error {
	f, err := fsutil.OpenPrivate(j.Path(), os.O_RDWR|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	st, err := f.Stat()
	if err == nil {
		j.size = st.Size()
		err = j.endLine(f)
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("journal: %s: %w", j.Path(), err)
	}
	j.f = f
	return nil
}

// endLine terminates a last line a crash cut short, so that the next
// record is a line of its own instead of being glued to the fragment. The
// fragment is kept as one unreadable line (readers pass over those) rather
// than truncated: the journal is append-only, and a reader following it by
// offset must never see it shrink.
func (j *Journal) endLine(f *os.File) error {
	if j.size == 0 {
		return nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], j.size-1); err != nil {
		return fmt.Errorf("read its last byte: %w", err)
	}
	if last[0] == '\n' {
		return nil
	}
	n, err := f.Write([]byte{'\n'})
	j.size += int64(n)
	if err != nil {
		return fmt.Errorf("end its torn last line: %w", err)
	}
	return nil
}

// Write appends one event as one line in a single write, so a kill at any
// moment leaves whole lines behind; a write a full disk cut short leaves a
// fragment, which the next Write ends as a line of its own. After a
// rotation that failed half-way it opens the file again: only Close ends
// the journal.
func (j *Journal) Write(ev health.Event) error {
	line, err := Encode(ev)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return ErrClosed
	}
	if err := j.injected(); err != nil {
		return err
	}
	if j.f == nil {
		if err := j.openFile(); err != nil {
			return err
		}
	}
	if j.size > 0 && j.size+int64(len(line)) > j.opts.MaxBytes {
		if err := j.rotate(); err != nil {
			return err
		}
	}
	if j.torn {
		if err := j.endLine(j.f); err != nil {
			return fmt.Errorf("journal: %s: %w", j.Path(), err)
		}
		j.torn = false
	}
	n, err := j.f.Write(line)
	j.size += int64(n)
	if err != nil {
		// A full disk may take part of the line: the retry must not be
		// glued onto that fragment, or neither could be read back.
		j.torn = n > 0
		return fmt.Errorf("journal: write: %w", err)
	}
	return nil
}

// rotate leaves j.f nil when it fails after closing the file; the next
// Write opens it again (renamed or not) and, when still too big, rotates.
func (j *Journal) rotate() error {
	err := j.f.Close()
	j.f = nil
	if err != nil {
		return fmt.Errorf("journal: close for rotation: %w", err)
	}
	base := j.Path()
	for i := j.opts.Keep - 1; i >= 1; i-- {
		_ = os.Rename(fmt.Sprintf("%s.%d", base, i), fmt.Sprintf("%s.%d", base, i+1))
	}
	if err := os.Rename(base, base+".1"); err != nil {
		return fmt.Errorf("journal: rotate: %w", err)
	}
	if err := j.injected(); err != nil {
		return fmt.Errorf("journal: reopen after rotation: %w", err)
	}
	return j.openFile()
}

// Close is safe to call twice.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.closed = true
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// Encode renders an event as its journal line, newline included: the
// typed fields of its kind's family (Event.Carried) under their journal names,
// and its extra fields. Extra fields never replace the contract's own nor
// the typed ones.
func Encode(ev health.Event) ([]byte, error) {
	rec := make(map[string]any, len(ev.Extra)+8)
	for k, v := range ev.Extra {
		if !reserved(k) {
			rec[k] = v
		}
	}
	putFacts(rec, ev.Carried())
	putLog(rec, ev.Log)
	rec["time"] = ev.Time.Format(time.RFC3339Nano)
	rec["kind"] = ev.Kind
	rec["server"] = ev.Server
	rec["session"] = mask.ID(ev.Session)
	rec["detail"] = ev.Detail
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrUnencodable, ev.Kind, err)
	}
	return append(b, '\n'), nil
}
