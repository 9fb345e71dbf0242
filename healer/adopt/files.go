package adopt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/mcpwatchdog/watchdog/internal/casfile"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
)

// Files of the state directory.
const (
	// backupDir holds the copies of hosts' files taken before adopt or
	// release wrote them.
	backupDir = "adopted"
	// lockFile is held through every adopt and release.
	lockFile = "adopt.lock"
	// keepBackups is how many backups of one file are kept.
	keepBackups = 5
	// lockWait bounds the wait for another adopt or release to end.
	lockWait = 30 * time.Second
	// maxConfig bounds the watchdog's own config file.
	maxConfig = 1 << 20
)

// lock takes the adopt lock of stateDir, waiting up to lockWait.
func lock(ctx context.Context, stateDir string) (func(), error) {
	if err := fsutil.PrivateDir(stateDir); err != nil {
		return nil, err
	}
	path := filepath.Join(stateDir, lockFile)
	fl := flock.New(path)
	ctx, cancel := context.WithTimeout(ctx, lockWait)
	defer cancel()
	ok, err := fl.TryLockContext(ctx, 20*time.Millisecond)
	if !ok {
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w (it holds %s): wait for it to end, and try again", ErrBusy, path)
		}
		return nil, fmt.Errorf("taking the lock %s: %w", path, err)
	}
	return func() { _ = fl.Unlock() }, nil
}

// state is every file a transaction reads, as it was read.
type state struct {
	rec    *Record
	recRaw []byte // the record's bytes; nil when there is none
	cfg    casfile.Snapshot
	files  []hostFile
}

// hostFile is one of the host's files as read.
type hostFile struct {
	snap    casfile.Snapshot
	format  hostfile.Format
	layout  host.Layout
	servers []hostfile.Server
	err     error // why it could not be read or parsed; its servers are left alone
}

// snapshot reads the record, the watchdog's config and the host's files:
// o.Files and those the record holds for the host.
func snapshot(o Options) (*state, error) {
	rec, raw, err := loadRecord(o.StateDir)
	if err != nil {
		return nil, err
	}
	st := &state{rec: rec, recRaw: raw}
	if st.cfg, err = casfile.Read(o.ConfigPath, maxConfig); err != nil {
		return nil, fmt.Errorf("the watchdog's config: %w", err)
	}
	paths := slices.Clone(o.Files)
	if hr := rec.Hosts[o.Host.Name]; hr != nil {
		for _, fr := range hr.Files {
			if !slices.Contains(paths, fr.Path) {
				paths = append(paths, fr.Path)
			}
		}
	}
	for _, path := range paths {
		st.files = append(st.files, readHostFile(o.Host, path))
	}
	return st, nil
}

func readHostFile(p host.Profile, path string) hostFile {
	format, err := hostfile.FormatOf(path)
	if err != nil {
		return hostFile{snap: casfile.Snapshot{Path: path}, err: err}
	}
	return readWith(path, format, p.LayoutOf(path))
}

// readWith reads a host file in a known format and layout.
func readWith(path string, format hostfile.Format, layout host.Layout) hostFile {
	f := hostFile{format: format, layout: layout, snap: casfile.Snapshot{Path: path}}
	var err error
	if f.snap, err = casfile.Read(path, find.MaxFileSize); err != nil {
		f.err = fmt.Errorf("%w: %s", err, unreadable(err, path))
		return f
	}
	if !f.snap.Exists {
		f.err = fmt.Errorf("%s is gone", path)
		return f
	}
	if f.servers, err = hostfile.Servers(f.format, f.snap.Data, f.layout); err != nil {
		f.err = fmt.Errorf("%s: %w: %s", path, err, unreadable(err, path))
	}
	return f
}

// unreadable says what to do about a host's file at path that could not
// be read or parsed, for the cause err.
func unreadable(err error, path string) string {
	switch {
	case errors.Is(err, fsutil.ErrNotRegular):
		return "the host keeps its servers in a file of that name: move it out of the way (or make it that file)"
	case errors.Is(err, fs.ErrPermission):
		return "let your user read it (chmod u+r " + shellWord(path) + ")"
	case errors.Is(err, fsutil.ErrTooLarge):
		return "make it smaller"
	case errors.Is(err, hostfile.ErrSyntax):
		return "fix the file at that line"
	}
	return "fix it"
}

// fileOf is the index of path among st's files, -1 when it is not there.
func (st *state) fileOf(path string) int {
	return slices.IndexFunc(st.files, func(f hostFile) bool { return f.snap.Path == path })
}

// backup keeps a copy of a host file's data in the state directory, at
// adopted/<host>/<file name>.<folder hash>.<time>.<content hash>, 0600: a
// new one only when no kept copy of that file holds data (a copy that
// does is renamed to now, the newest), the last keepBackups kept. It
// returns the copy that holds data.
func backup(stateDir, hostSlug, path string, data []byte, now time.Time) (string, error) {
	dir := filepath.Join(stateDir, backupDir, hostSlug)
	for _, d := range []string{filepath.Join(stateDir, backupDir), dir} {
		if err := fsutil.PrivateDir(d); err != nil {
			return "", fmt.Errorf("backing up %s: %w", path, err)
		}
	}
	// The folder's hash tells apart files of one name (DSH's profiles'
	// cordis.yml, projects' .mcp.json).
	h := fnv.New32a()
	_, _ = h.Write([]byte(filepath.Dir(path)))
	prefix := fmt.Sprintf("%s.%08x.", strings.TrimPrefix(filepath.Base(path), "."), h.Sum32())
	sum := sha256.Sum256(data)
	dst := filepath.Join(dir, prefix+now.UTC().Format("20060102T150405.000000000Z")+"."+hex.EncodeToString(sum[:8]))
	have, _ := filepath.Glob(filepath.Join(dir, globEscape(prefix)+"*"))
	i := slices.IndexFunc(have, func(b string) bool { return strings.HasSuffix(b, "."+hex.EncodeToString(sum[:8])) })
	var err error
	if i >= 0 {
		err = os.Rename(have[i], dst) // the same bytes: no copy, but the newest now
		have = slices.Delete(have, i, i+1)
	} else {
		err = fsutil.WriteAtomic(dst, data, 0o600)
	}
	if err != nil {
		return "", fmt.Errorf("backing up %s: %w", path, err)
	}
	slices.Sort(have) // the time in the name sorts them
	for _, old := range have[:max(0, len(have)-(keepBackups-1))] {
		_ = os.Remove(old)
	}
	return dst, nil
}

// globEscape quotes the pattern characters of a file name for Glob.
func globEscape(s string) string {
	return strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`).Replace(s)
}
