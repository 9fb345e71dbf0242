package adopt

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/monitor/hosts"
)

// backupDir holds the copies of hosts' files taken before adopt wrote them.
const backupDir = "adopted"

// readFile reads a host's config file, bounded as monitor/hosts reads it.
func readFile(path string) ([]byte, error) {
	b, err := fsutil.ReadRegular(path, hosts.MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return b, nil
}

// writeFile replaces the file path names (following a symbolic link, as a
// dotfile manager makes them) with data, keeping its mode.
func writeFile(path string, data []byte) error {
	target, err := filepath.EvalSymlinks(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		target = path // a new file
	case err != nil:
		return fmt.Errorf("writing %s: %w", path, err)
	}
	mode := fs.FileMode(0o600)
	if fi, err := os.Stat(target); err == nil {
		mode = fi.Mode().Perm()
	}
	return fsutil.WriteAtomic(target, data, mode)
}

// backup copies data, a host's file as it was, into the state directory:
// adopted/<host>/<file name>.<time>, 0600.
func backup(stateDir, hostSlug, path string, data []byte, now time.Time) (string, error) {
	dir := filepath.Join(stateDir, backupDir, hostSlug)
	if err := fsutil.PrivateDir(filepath.Join(stateDir, backupDir)); err != nil {
		return "", err
	}
	if err := fsutil.PrivateDir(dir); err != nil {
		return "", err
	}
	// The folder's hash tells apart files of one name (DSH's profiles'
	// cordis.yml, Claude Code's projects' .mcp.json) backed up at once.
	h := fnv.New32a()
	_, _ = h.Write([]byte(filepath.Dir(path)))
	name := fmt.Sprintf("%s.%08x.%s", strings.TrimPrefix(filepath.Base(path), "."), h.Sum32(), now.UTC().Format("20060102T150405.000000000Z"))
	dst := filepath.Join(dir, name)
	if err := fsutil.WriteAtomic(dst, data, 0o600); err != nil {
		return "", fmt.Errorf("backing up %s: %w", path, err)
	}
	return dst, nil
}

// readConfig reads the watchdog's config file; a missing one is "".
func readConfig(path string) ([]byte, bool, error) {
	b, err := fsutil.ReadRegular(path, 64<<10)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading the watchdog's config %s: %w", path, err)
	}
	return b, true, nil
}

// writeConfig writes the watchdog's config, making its folder when new.
func writeConfig(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("writing the watchdog's config: %w", err)
	}
	return writeFile(path, data)
}
