package clientpatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// Temp files are ".mcp-watchdog-<random>.js": in the module's directory so
// the package's "type": "module" makes Node parse them as ESM, and named so
// that a later run knows them as ours and removes them.
const (
	tempPrefix = ".mcp-watchdog-"
	tempSuffix = ".js"
)

// nodeCheckTimeout bounds `node --check` (it takes ~0.1 s).
const nodeCheckTimeout = 30 * time.Second

// replace swaps the module's bytes for data, all or nothing: temp file in
// the same directory, fsync, `node --check`, rename, fsync of the
// directory. With backup non-nil, those bytes are saved first.
func (m module) replace(data, backup []byte, verb string) (err error) {
	dir := filepath.Dir(m.path)
	tmp, err := os.CreateTemp(dir, tempPrefix+"*"+tempSuffix)
	if err != nil {
		return m.writeErr(err, verb)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if backup != nil {
		if _, err := m.bk.save(backup, m.path, m.o.Now()); err != nil {
			tmp.Close()
			return fmt.Errorf("clientpatch: %w; nothing changed", err)
		}
	}
	if err := fillTemp(tmp, data, m.info); err != nil {
		return fmt.Errorf("clientpatch: temp file: %w; nothing changed", err)
	}
	if err := nodeCheck(m.o.Node, tmp.Name()); err != nil {
		return err
	}
	// An install or update may have replaced the file since it was read.
	if now, err := fsutil.ReadRegular(m.path, maxModuleSize); err != nil || !bytes.Equal(now, m.content) {
		return fmt.Errorf("clientpatch: %s changed during the %s (reinstalled?); nothing changed: run it again", m.path, verb)
	}
	if err := os.Rename(tmp.Name(), m.path); err != nil {
		return m.writeErr(err, verb)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("clientpatch: fsync %s: %w", dir, err)
	}
	return nil
}

// fillTemp writes data with the original's mode (and owner, when root can
// set it), fsyncs and closes.
func fillTemp(f *os.File, data []byte, orig fs.FileInfo) error {
	err := f.Chmod(orig.Mode().Perm())
	if err == nil {
		err = keepOwner(f, orig)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// nodeCheck parses file with Node without running it.
func nodeCheck(node, file string) error {
	ctx, cancel := context.WithTimeout(context.Background(), nodeCheckTimeout)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, node, "--check", file)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("%w: %s not found (Node.js is needed to check the file before it replaces the original); nothing changed", ErrNodeCheck, node)
		}
		return fmt.Errorf("%w: %v: %s; nothing changed", ErrNodeCheck, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// writeErr turns a permission error into ErrReadOnly with the fix.
func (m module) writeErr(err error, verb string) error {
	if !errors.Is(err, fs.ErrPermission) && !errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("clientpatch: %w; nothing changed", err)
	}
	return fmt.Errorf("%w: cannot write in %s (%v): the install is owned by %s: run `sudo watchdog patch %s --module %s`, or reinstall %s under a user-owned prefix (npm config set prefix ~/.npm-global); nothing changed",
		ErrReadOnly, filepath.Dir(m.path), err, owner(filepath.Dir(m.path)), verb, m.path, m.t.hostName)
}

// cleanTemps removes temp files a killed run left in dir. Only names of
// our exact form are touched.
func cleanTemps(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasPrefix(n, tempPrefix) && strings.HasSuffix(n, tempSuffix) {
			_ = os.Remove(filepath.Join(dir, n))
		}
	}
}
