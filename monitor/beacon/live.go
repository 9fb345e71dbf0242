package beacon

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpwatchdog/watchdog/monitor/proc"
)

// startSlack absorbs the imprecision of a process's start time (a clock
// tick, and /proc/uptime read a moment apart) when it is compared with a
// beacon's write. A real client writes its first beacon long after it
// started (it loads its plugins first), so this costs no true beacon.
const startSlack = 100 * time.Millisecond

// verdict is what a look at a beacon's writer found.
type verdict int

const (
	unsure verdict = iota // the look failed: keep what was believed
	alive                 // the writer runs
	dead                  // no process, a zombie, or the pid reused by a later process
)

// judgeAll decides for every accepted beacon whether its writer lives, and
// removes the beacons of the dead.
func (l *loop) judgeAll(ctx context.Context) {
	for pid, e := range l.entries {
		if !e.ok {
			continue
		}
		v := l.judge(ctx, e)
		if ctx.Err() != nil {
			return // a look cut short proves nothing
		}
		switch v {
		case alive:
			e.live = true
		case dead:
			l.removeDead(pid, e)
		}
	}
}

// judge checks e's writer. Known alive: the same pid and start time (cheap,
// one pid). Not yet known: the process at the pid must have begun before
// the beacon was written, else the pid was reused after the writer died.
func (l *loop) judge(ctx context.Context, e *entry) verdict {
	if e.live {
		ok, err := proc.Alive(ctx, e.host)
		switch {
		case err != nil:
			return unsure
		case ok:
			return alive
		}
		return dead
	}
	h, v := l.writer(ctx, e.client.PID, written(e))
	if v == alive {
		e.host, e.client.Started = h, h.Started
	}
	return v
}

// writer looks for a live process at pid that began no later than at
// (when its file was written).
func (l *loop) writer(ctx context.Context, pid int32, at time.Time) (proc.Host, verdict) {
	h, found := proc.Lookup(ctx, pid)
	if !found {
		if pidGone(pid) {
			return proc.Host{}, dead
		}
		return proc.Host{}, unsure
	}
	ok, err := proc.Alive(ctx, h)
	switch {
	case err != nil:
		return proc.Host{}, unsure
	case !ok:
		return proc.Host{}, dead // a zombie, or gone since the Lookup
	case proc.Began(h).After(at.Add(startSlack)):
		return proc.Host{}, dead // began after the write: not the writer
	}
	return h, alive
}

// written is when e's beacon was written at the latest: its own updated
// time, or the file's, whichever is earlier (a clock-skewed or forged
// future "updated" cannot make a newer process its writer).
func written(e *entry) time.Time {
	at := e.fi.ModTime()
	if u := e.client.Updated; !u.IsZero() && u.Before(at) {
		at = u
	}
	return at
}

// removeDead deletes the beacon of a dead writer, and its temp file, and
// forgets it. Only the version judged is deleted: a file renamed over it
// since then is a new writer's, and is read next time.
func (l *loop) removeDead(pid int32, e *entry) {
	path := filepath.Join(l.dir, beaconName(pid))
	if fi, err := os.Lstat(path); err == nil && sameVersion(e.fi, fi) {
		if err := os.Remove(path); err != nil && !isMissing(err) {
			l.warnOnce(path, "beacons: cannot remove the beacon of a dead client", "path", path, "err", err)
			return
		}
		l.log.Info("beacons: removed the beacon of a client that is gone", "pid", pid, "path", path)
	}
	delete(l.entries, pid)
	l.removeTemp(pid)
}

// sweepTemps removes temp files no live process can be writing: left by a
// client killed mid-write.
func (l *loop) sweepTemps(ctx context.Context, pids []int32) {
	for _, pid := range pids {
		if e, ok := l.entries[pid]; ok && e.live {
			continue // its writer is alive and may be writing right now
		}
		fi, err := os.Lstat(filepath.Join(l.dir, tempName(pid)))
		if err != nil {
			continue
		}
		if _, v := l.writer(ctx, pid, fi.ModTime()); v == dead && ctx.Err() == nil {
			l.removeTemp(pid)
		}
	}
}

// removeTemp deletes pid's temp file when it is an entry of ours (a symlink
// is removed itself, never followed).
func (l *loop) removeTemp(pid int32) {
	path := filepath.Join(l.dir, tempName(pid))
	fi, err := os.Lstat(path)
	if err != nil || fi.IsDir() {
		return
	}
	if uid, known := ownerOf(fi); known && uid != l.uid {
		return
	}
	if err := os.Remove(path); err != nil && !isMissing(err) {
		l.warnOnce(path, "beacons: cannot remove a dead client's temp file", "path", path, "err", err)
	}
}
