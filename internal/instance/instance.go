// Package instance keeps a single watchdog daemon per state directory.
//
// The guard is an advisory lock (flock) on STATE_DIR/watchdog.lock, which the
// kernel drops when the holder dies, so a crashed daemon never blocks the next
// one. STATE_DIR/watchdog.pid is informational only: it names the holder in
// the error a second daemon gets, and is never trusted to decide who runs.
package instance

import (
	"github.com/mcpwatchdog/watchdog/internal/fsutil"

	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// File names inside the state directory.
const (
	LockFile = "watchdog.lock"
	PIDFile  = "watchdog.pid"
	// The proxy process (`watchdog proxy`) has a lock of its own: it runs
	// beside the daemon, one per state directory too.
	ProxyLockFile = "proxy.lock"
	ProxyPIDFile  = "proxy.pid"
)

// ErrRunning means another process holds the instance lock. It is returned
// wrapped in a *RunningError that names that process when its pid is known.
var ErrRunning = errors.New("watchdog already running")

// RunningError is returned by Acquire when another process holds the lock.
// PID is 0 when the holder's pid file could not be read.
type RunningError struct {
	PID int
}

func (e *RunningError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("%s (pid %d)", ErrRunning, e.PID)
	}
	return ErrRunning.Error()
}

// Unwrap lets errors.Is(err, ErrRunning) match.
func (e *RunningError) Unwrap() error { return ErrRunning }

// Lock is a held instance lock. Release it on shutdown.
type Lock struct {
	mu       sync.Mutex
	fl       *flock.Flock
	pidPath  string
	released bool
}

// pidWait bounds how long Acquire waits for a holder that has just locked
// but not yet written its pid file, so the error can still name it.
const (
	pidWaitTries = 10
	pidWaitStep  = 20 * time.Millisecond
)

// Acquire takes the instance lock in stateDir (created 0700 if missing,
// and refused unless private: fsutil.PrivateDir) and records the caller's
// pid. It fails with a *RunningError wrapping ErrRunning when another
// process (or another Lock in this process) holds it.
func Acquire(stateDir string) (*Lock, error) { return acquire(stateDir, LockFile, PIDFile) }

// AcquireProxy is Acquire of the proxy process's lock.
func AcquireProxy(stateDir string) (*Lock, error) {
	return acquire(stateDir, ProxyLockFile, ProxyPIDFile)
}

func acquire(stateDir, lockName, pidName string) (*Lock, error) {
	if err := fsutil.PrivateDir(stateDir); err != nil {
		return nil, fmt.Errorf("instance: %w", err)
	}
	lockPath := filepath.Join(stateDir, lockName)
	made, err := prepareLockFile(lockPath)
	if err != nil {
		return nil, err
	}
	fl := flock.New(lockPath, flock.SetFlag(os.O_CREATE|os.O_RDONLY|fsutil.PrivateFlags), flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("instance: lock %s: %w", lockPath, err)
	}
	pidPath := filepath.Join(stateDir, pidName)
	if !ok {
		return nil, &RunningError{PID: waitHolderPID(pidPath)}
	}
	l := &Lock{fl: fl, pidPath: pidPath}
	// flock opened the path again: it must still be the file checked.
	if fi, err := fl.Stat(); err != nil || !os.SameFile(fi, made) {
		_ = fl.Unlock()
		return nil, fmt.Errorf("instance: lock %s was replaced while it was opened; try again", lockPath)
	}
	if err := writePIDFile(pidPath, os.Getpid()); err != nil {
		_ = fl.Unlock()
		return nil, err
	}
	return l, nil
}

// prepareLockFile creates the lock file as a state file (no link followed,
// a regular file, made 0600 through its descriptor: an older version's may
// carry wider bits) and says which file it is.
func prepareLockFile(path string) (os.FileInfo, error) {
	f, err := fsutil.OpenPrivate(path, os.O_RDONLY|os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("instance: lock: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("instance: lock %s: %w", path, err)
	}
	return fi, nil
}

// Release removes the pid file and drops the lock. It is safe to call more
// than once; later calls return nil. The lock file itself stays: deleting
// it would let two processes lock two different inodes of the same path.
func (l *Lock) Release() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return nil
	}
	l.released = true
	var errs []error
	if err := os.Remove(l.pidPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("instance: remove pid file: %w", err))
	}
	if err := l.fl.Unlock(); err != nil {
		errs = append(errs, fmt.Errorf("instance: unlock: %w", err))
	}
	return errors.Join(errs...)
}

// waitHolderPID reads the holder's pid, giving a holder that has just taken
// the lock a moment to write it. 0 means unknown.
func waitHolderPID(path string) int {
	for i := 0; i < pidWaitTries; i++ {
		if pid, err := readPIDFile(path); err == nil {
			return pid
		}
		time.Sleep(pidWaitStep)
	}
	return 0
}

// readPIDFile parses a pid file: one positive decimal number, surrounding
// whitespace allowed.
func readPIDFile(path string) (int, error) {
	b, err := fsutil.ReadPrivate(path, 64)
	if err != nil {
		return 0, err
	}
	return parsePID(string(b))
}

func parsePID(s string) (int, error) {
	pid, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("instance: bad pid file: %w", err)
	}
	if pid <= 0 {
		return 0, fmt.Errorf("instance: bad pid %d in pid file", pid)
	}
	return pid, nil
}

// writePIDFile replaces path atomically (temp file, fsync, rename), so a
// reader sees either the old pid or the new one, never a partial write.
func writePIDFile(path string, pid int) error {
	if err := fsutil.WriteAtomic(path, []byte(strconv.Itoa(pid)+"\n"), 0o600); err != nil {
		return fmt.Errorf("instance: pid file: %w", err)
	}
	return nil
}
