package clientpatch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

const (
	backupFile     = "index.js"
	backupSource   = "module-path.txt" // where the original came from, for a person
	partialPrefix  = ".partial-"       // a backup being written; removed if left over
	lockFile       = ".lock"
	backupTimeForm = "20060102T150405.000000000Z"
)

// backups is the folder where originals are kept (the host profile's
// Client.BackupDir under the user's home): one folder per apply, named by
// its UTC time so names sort by age. dir "" is none.
type backups struct{ dir string }

func (b backups) root() string { return b.dir }

// list returns backup files, newest first.
func (b backups) list() []string {
	if b.dir == "" {
		return nil
	}
	entries, err := os.ReadDir(b.root())
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range slices.Backward(entries) { // ReadDir sorts by name
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(b.root(), e.Name(), backupFile)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

func (b backups) newest() (string, bool) {
	l := b.list()
	if len(l) == 0 {
		return "", false
	}
	return l[0], true
}

// find returns the newest backup whose digest passes ok, and its bytes.
func (b backups) find(ok func(digest string) bool) (string, []byte, bool) {
	for _, p := range b.list() {
		data, err := fsutil.ReadRegular(p, maxModuleSize)
		if err == nil && ok(digest(data)) {
			return p, data, true
		}
	}
	return "", nil, false
}

func (b backups) hasDigest(d string) bool {
	_, _, ok := b.find(func(x string) bool { return x == d })
	return ok
}

// save keeps a copy of original unless the newest backup already holds
// these bytes (a second apply, or one after a killed apply, adds none).
// The folder is written under a partial name and renamed, so a kill
// leaves either no backup or a whole one.
func (b backups) save(original []byte, module string, now time.Time) (string, error) {
	d := digest(original)
	if p, ok := b.newest(); ok {
		if data, err := fsutil.ReadRegular(p, maxModuleSize); err == nil && digest(data) == d {
			return p, nil
		}
	}
	tmp, err := os.MkdirTemp(b.root(), partialPrefix)
	if err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := writeSynced(filepath.Join(tmp, backupFile), original, 0o600); err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	if err := writeSynced(filepath.Join(tmp, backupSource), []byte(module+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	if err := syncDir(tmp); err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	dst, err := b.freeName(now)
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dst); err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	if err := syncDir(b.root()); err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	return filepath.Join(dst, backupFile), nil
}

// freeName returns a folder name for now that is not taken yet.
func (b backups) freeName(now time.Time) (string, error) {
	base := filepath.Join(b.root(), now.UTC().Format(backupTimeForm))
	for i := 0; i < 100; i++ {
		p := base
		if i > 0 {
			p = fmt.Sprintf("%s-%02d", base, i)
		}
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
	}
	return "", fmt.Errorf("backup: no free folder name near %s", base)
}

// cleanPartial removes backups a killed apply left half written.
func (b backups) cleanPartial() {
	entries, _ := os.ReadDir(b.root())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), partialPrefix) {
			_ = os.RemoveAll(filepath.Join(b.root(), e.Name()))
		}
	}
}

// writeSynced writes a new file and fsyncs it.
func writeSynced(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
