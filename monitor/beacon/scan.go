package beacon

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpwatchdog/watchdog/monitor/proc"
)

// entry is one beacon file as last read.
type entry struct {
	fi     fs.FileInfo // what was read; a file that differs is read again
	client Client      // as parsed, when ok
	ok     bool        // parsed and accepted (else skipped, and said why)
	host   proc.Host   // the writer, once judged alive
	live   bool
}

// scan reads the directory, judges every beacon's writer, removes the
// beacons of the dead and sends an Update when the live set changed. It
// reports false when ctx ended: nothing is judged or sent on a cut-short look.
func (l *loop) scan(ctx context.Context) bool {
	names, ok := l.listDir()
	seen := map[int32]bool{}
	var temps []int32
	if ok {
		for _, name := range names {
			if pid, ok := beaconPID(name); ok {
				seen[pid] = true
				l.readBeacon(pid)
			} else if pid, ok := tempPID(name); ok {
				temps = append(temps, pid)
			}
		}
	}
	for pid := range l.entries {
		if !seen[pid] {
			delete(l.entries, pid)
		}
	}
	l.judgeAll(ctx)
	l.sweepTemps(ctx, temps)
	if ctx.Err() != nil {
		return false
	}
	l.forgetWarnings(names)
	return l.publish(ctx)
}

// listDir returns the names in Dir when it is there and may be trusted:
// ours, and private (made so when it was not). Otherwise none, said once.
func (l *loop) listDir() ([]string, bool) {
	fi, err := os.Stat(l.dir)
	if isMissing(err) {
		delete(l.warned, l.dir)
		return nil, false // not yet made: the client makes it on first start
	}
	if err == nil && !fi.IsDir() {
		l.warnOnce(l.dir, "beacons: not a directory; no beacon is read until it is one", "dir", l.dir)
		return nil, false
	}
	if err != nil {
		l.warnOnce(l.dir, "beacons: cannot read directory", "dir", l.dir, "err", err)
		return nil, false
	}
	if uid, known := ownerOf(fi); known && uid != l.uid {
		l.warnOnce(l.dir, "beacons: the directory belongs to another user, so its beacons are ignored; "+
			"remove it (the client makes it again) or give it to this user with chown",
			"dir", l.dir, "owner_uid", uid, "uid", l.uid)
		return nil, false
	}
	if !l.private(l.dir, fi, 0o700, func(m fs.FileMode) error { return os.Chmod(l.dir, m) }) {
		return nil, false
	}
	des, err := os.ReadDir(l.dir)
	if err != nil {
		l.warnOnce(l.dir, "beacons: cannot list directory", "dir", l.dir, "err", err)
		return nil, false
	}
	delete(l.warned, l.dir)
	names := make([]string, 0, len(des))
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names, true
}

// private makes a file or directory of ours that others may read or write
// private (want); it reports false when that failed.
func (l *loop) private(path string, fi fs.FileInfo, want fs.FileMode, chmod func(fs.FileMode) error) bool {
	if fi.Mode().Perm()&0o077 == 0 {
		return true
	}
	if err := chmod(want); err != nil {
		l.warnOnce(path, "beacons: others may read it and it cannot be made private; skipped",
			"path", path, "mode", fi.Mode().Perm().String(), "err", err)
		return false
	}
	l.log.Info("beacons: others could read it; made it private", "path", path,
		"was", fi.Mode().Perm().String(), "now", want.String())
	return true
}

// readBeacon reads pid's beacon when it is new or changed since last read.
func (l *loop) readBeacon(pid int32) {
	path := filepath.Join(l.dir, beaconName(pid))
	fi, err := os.Lstat(path)
	if err != nil {
		delete(l.entries, pid) // gone between the listing and now
		return
	}
	if e, ok := l.entries[pid]; ok && sameVersion(e.fi, fi) {
		return
	}
	e := &entry{fi: fi}
	l.entries[pid] = e
	c, err := l.load(path, fi)
	switch {
	case errors.Is(err, errRaced):
		e.fi = nil // replaced while read: read the new one next time
	case err != nil:
		l.warnOnce(path, "beacons: file skipped", "path", path, "err", err)
	case c.PID != pid:
		l.warnOnce(path, "beacons: file skipped: its pid is not the one in its name; remove it",
			"path", path, "pid", c.PID)
	default:
		c.Path = path
		e.client, e.ok = c, true
		delete(l.warned, path)
	}
}

// publish sends the live clients when they differ from what was last sent
// (and always the first time); false when ctx ended first.
func (l *loop) publish(ctx context.Context) bool {
	var cs []Client
	for _, e := range l.entries {
		if e.ok && e.live {
			cs = append(cs, e.client)
		}
	}
	slices.SortFunc(cs, func(a, b Client) int { return cmp.Compare(a.PID, b.PID) })
	if l.sentAny && slices.EqualFunc(cs, l.sent, Client.equal) {
		return true
	}
	if !l.send(ctx, Update{Clients: cs}) {
		return false
	}
	l.sent, l.sentAny = cs, true
	return true
}

// sameVersion reports whether b is the file a was: the same inode (a
// rename-over makes a new one), size, time and mode.
func sameVersion(a, b fs.FileInfo) bool {
	return a != nil && os.SameFile(a, b) && a.Size() == b.Size() &&
		a.ModTime().Equal(b.ModTime()) && a.Mode() == b.Mode()
}

// beaconName is pid's beacon; tempName the client's file while it writes.
func beaconName(pid int32) string { return strconv.Itoa(int(pid)) + ".json" }
func tempName(pid int32) string   { return "." + beaconName(pid) + ".tmp" }

// beaconPID reads "<pid>.json": digits with no sign or leading zero, so
// that one pid has one name.
func beaconPID(name string) (int32, bool) {
	digits, ok := strings.CutSuffix(name, ".json")
	if !ok || digits == "" || digits[0] == '0' || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// tempPID reads ".<pid>.json.tmp".
func tempPID(name string) (int32, bool) {
	inner, ok := strings.CutPrefix(name, ".")
	if !ok {
		return 0, false
	}
	inner, ok = strings.CutSuffix(inner, ".tmp")
	if !ok {
		return 0, false
	}
	return beaconPID(inner)
}
