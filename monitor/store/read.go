package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
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
	data, err := Read(l.path)
	switch {
	case err == nil:
		l.gotData(ctx, data, fromRetry)
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
	sessions, skipped, err := Parse(data)
	if err != nil {
		l.fail(ctx, fmt.Errorf("session store %s: %w", l.path, err), fromRetry)
		return
	}
	l.stopRetry()
	l.state, l.hash = stateSnapshot, h
	l.log.Debug("session store read", "path", l.path, "sessions", len(sessions), "skipped", skipped)
	l.emit(ctx, Update{Path: l.path, Snapshot: &Snapshot{
		Path: l.path, Sessions: sessions, Skipped: skipped, ReadAt: l.w.opts.Now(),
	}})
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

// Read reads a store file whole, refusing one larger than MaxStoreSize
// and anything but a regular file: a FIFO at the store's path must not
// block the watcher (or doctor) in open(2). Links are followed.
func Read(path string) ([]byte, error) {
	data, err := fsutil.ReadRegular(path, MaxStoreSize)
	if errors.Is(err, fsutil.ErrTooLarge) {
		return nil, fmt.Errorf("larger than %d bytes; not read", MaxStoreSize)
	}
	return data, err
}

// absent: the file, or a directory on its path, does not exist.
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
