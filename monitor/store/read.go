package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// evaluate reads the store and sends an Update if content or state changed.
// fromRetry marks the retry timer's reads: a failure is reported only when it
// has lasted a retry interval, so a save caught mid-write does not flicker.
func (l *loop) evaluate(ctx context.Context, fromRetry bool) {
	if l.path == "" {
		return
	}
	data, fi, err := readStat(l.path)
	switch {
	case err == nil:
		l.gotData(ctx, data, fromRetry)
		if l.state == stateSnapshot {
			l.read = fi
		}
	case errors.Is(err, ErrTooLarge):
		l.oversize(ctx, fmt.Errorf("session store %s: %w", l.path, err))
	case absent(err):
		l.stopRetry()
		if l.state != stateGone {
			l.state = stateGone
			l.log.Info("session store absent", "path", l.path)
			l.emit(ctx, Update{Path: l.path, Gone: true})
		}
	default:
		l.fail(ctx, fmt.Errorf("session store %s: %w", l.path, err), fromRetry)
	}
}

func (l *loop) gotData(ctx context.Context, data []byte, fromRetry bool) {
	h := sha256.Sum256(data)
	if l.state == stateSnapshot && h == l.hash {
		l.stopRetry() // back to what was sent: a passing half-write
		return
	}
	res, err := ParseLimit(data, MaxSessions)
	if err != nil {
		l.fail(ctx, fmt.Errorf("session store %s: %w", l.path, err), fromRetry)
		return
	}
	l.stopRetry()
	l.state, l.hash = stateSnapshot, h
	l.log.Debug("session store read", "path", l.path, "sessions", len(res.Sessions), "skipped", res.Skipped)
	switch {
	case res.Truncated > 0 && !l.truncated:
		l.log.Warn("session store holds more sessions than are kept; the least recently active are left out",
			"path", l.path, "kept", len(res.Sessions), "truncated", res.Truncated)
	case res.Truncated == 0 && l.truncated:
		l.log.Info("session store back under the session cap", "path", l.path, "sessions", len(res.Sessions))
	}
	l.truncated = res.Truncated > 0
	l.emit(ctx, Update{Path: l.path, Snapshot: &Snapshot{
		Path: l.path, Sessions: res.Sessions, Skipped: res.Skipped, Truncated: res.Truncated, ReadAt: l.w.opts.Now(),
	}})
}

// oversize reports a store over the cap at once (no save in progress makes
// a file larger than it ends up), once per streak, and does not retry:
// reading it again waits for a change or the backstop.
func (l *loop) oversize(ctx context.Context, err error) {
	l.stopRetry()
	if l.state == stateErr {
		return
	}
	l.state = stateErr
	l.log.Warn("session store too large; not read, keeping the last good snapshot", "err", err)
	l.emit(ctx, Update{Path: l.path, Err: err})
}

// fail keeps retrying; it reports the error once per streak, and only from a
// retry, so the failure has lasted at least one retry interval.
func (l *loop) fail(ctx context.Context, err error, fromRetry bool) {
	l.armRetry()
	if !fromRetry || l.state == stateErr {
		return
	}
	l.state = stateErr
	l.log.Warn("session store unreadable; keeping the last good snapshot", "err", err)
	l.emit(ctx, Update{Path: l.path, Err: err})
}

// ErrTooLarge: the store is over MaxStoreSize and was not read.
var ErrTooLarge = errors.New("too large")

// Load reads and parses the store at path once, as the watcher does: a file
// over MaxStoreSize is an error wrapping ErrTooLarge, and is not read.
func Load(path string) (Result, error) {
	data, err := Read(path)
	if err != nil {
		return Result{}, fmt.Errorf("session store %s: %w", path, err)
	}
	res, err := ParseLimit(data, MaxSessions)
	if err != nil {
		return Result{}, fmt.Errorf("session store %s: %w", path, err)
	}
	return res, nil
}

// Read reads a store file whole. Only a regular file, opened non-blocking:
// a FIFO at the store's path must not block the watcher (or doctor) in
// open(2). One larger than MaxStoreSize is refused by its size before it
// is read, and while reading if it grew meanwhile. Links are followed.
func Read(path string) ([]byte, error) {
	data, _, err := readStat(path)
	return data, err
}

// readStat is Read, with the file's stat taken before its bytes were read
// (nil when there was none): a later stat that shows the same file, size
// and time shows the same bytes.
func readStat(path string) ([]byte, os.FileInfo, error) {
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		st = nil
	} else if st.Size() > MaxStoreSize {
		return nil, nil, tooLarge(st.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxStoreSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read: %w", err)
	}
	if len(data) > MaxStoreSize {
		return nil, nil, tooLarge(int64(len(data)))
	}
	if st != nil && int64(len(data)) != st.Size() {
		st = nil // written while read: the stat is not of these bytes
	}
	return data, st, nil
}

// asRead: the store's path shows the file last read into the snapshot
// sent, unchanged (same file, size and modification time), so reading it
// again would find the same bytes: the backstop's check is one stat.
func (l *loop) asRead() bool {
	if l.state != stateSnapshot || l.read == nil {
		return false // nothing read to compare with: no stat
	}
	fi, err := os.Stat(l.path)
	return err == nil && fsutil.Unchanged(fi, l.read)
}

func tooLarge(size int64) error {
	return fmt.Errorf("%w: %d bytes, over the %d-byte cap, not read; a session store is a few KB: check that the path names the server's mcp-sessions.json",
		ErrTooLarge, size, MaxStoreSize)
}

// absent: the file, or a directory on its path, does not exist.
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
