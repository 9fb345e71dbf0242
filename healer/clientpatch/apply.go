package clientpatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/host"
)

// InstallOptions tune Install and Revert; the zero value is usable.
type InstallOptions struct {
	// Host is the host whose client the module is, as its profile says
	// (the backup folder, and the names in advice and errors); zero:
	// host.DSH(), whose client the patch is written for.
	Host host.Profile
	// Force applies to a file that is not a known version: every part
	// whose anchors are found exactly once goes in, provided the core fix
	// is among them. It also lets Revert drop changes made to a patched
	// file.
	Force bool
	// Home holds the backups (the profile's Client.BackupDir under it);
	// "": os.UserHomeDir.
	Home string
	// Node is the node binary for `node --check`; "": "node" from PATH.
	Node string
	// Now stamps backup folders; nil: time.Now.
	Now func() time.Time
	// Version is the patch version Install writes: "" is Version; "v1" the
	// first one, without the retry part, "v2" or "v3" (for reproductions of
	// the behaviour they had, and for upgrade tests).
	Version string
}

func (o InstallOptions) withDefaults() (InstallOptions, error) {
	if o.Home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return o, fmt.Errorf("clientpatch: home directory for backups: %w", err)
		}
		o.Home = h
	}
	if o.Node == "" {
		o.Node = "node"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Version == "" {
		o.Version = Version
	}
	if !knownVersion(o.Version) {
		return o, fmt.Errorf("clientpatch: unknown patch version %q", o.Version)
	}
	return o, nil
}

// Install patches the module at path. A file already patched is left alone
// (no write, no new backup); one patched by an older version is upgraded
// (its blocks swapped for the current ones; the backup stays the
// original). Refusals leave the file untouched:
// ErrUnknownVersion (not a known build, no Force), ErrUnsupported (a build
// the patch cannot fix), ErrAnchorsMissing (the core fix does not fit),
// ErrModified (patched, then changed), ErrReadOnly, ErrNodeCheck.
func Install(path string, o InstallOptions) (Status, error) {
	return withModule(path, o, func(m module) (Status, error) {
		a := m.t.analyze(m.content, m.t.packageVersion(m.path), m.bk.hasDigest)
		switch a.State {
		case StateApplied:
			if a.Version == m.o.Version {
				return m.status(a, "already applied; nothing changed"), nil
			}
			return m.upgrade(a)
		case StateModified:
			return m.status(a, ""), fmt.Errorf("%w: %s; revert it first (`watchdog patch revert --force --module %s`)", ErrModified, m.path, m.path)
		case StateUnsupported:
			return m.status(a, ""), fmt.Errorf("%w: %s is %s", ErrUnsupported, m.path, a.Base)
		case StateUnknownVersion:
			if !m.o.Force {
				return m.status(a, ""), fmt.Errorf("%w: %s has sha256 %s; `--force` puts in every part whose anchors are found, when the core fix is among them", m.t.unknownVersion(), m.path, a.Digest)
			}
		}
		patched, p, err := buildPlan(m.content, m.o.Version)
		if err != nil {
			return m.status(a, ""), err
		}
		if back, _, ok := strip(patched); !ok || !bytes.Equal(back, m.content) {
			return m.status(a, ""), errors.New("clientpatch: internal error: the patch would not revert cleanly; nothing written")
		}
		if err := m.replace(patched, m.content, "apply"); err != nil {
			return m.status(a, ""), err
		}
		done := "applied; "
		if len(p.missed) > 0 {
			done = "applied in part (this build lacks the anchors of: " + missedNames(p) + "; see parts); "
		}
		return m.reread(done + m.t.advice().restart)
	})
}

// Revert puts back the original: the newest backup holding exactly the
// file minus our blocks (or, with none, those bytes themselves when they
// are a known build). A modified file needs Force, and then gets the
// newest backup that is a known build. A file without our blocks is left
// alone.
func Revert(path string, o InstallOptions) (Status, error) {
	return withModule(path, o, func(m module) (Status, error) {
		a := m.t.analyze(m.content, m.t.packageVersion(m.path), m.bk.hasDigest)
		var orig []byte
		switch a.State {
		case StateUnpatched, StateUnknownVersion, StateUnsupported:
			return m.status(a, "not patched; nothing to revert"), nil
		case StateApplied:
			var ok bool
			if _, orig, ok = m.bk.find(func(d string) bool { return d == a.BaseDigest }); !ok {
				if _, known := knownBase(a.BaseDigest); !known {
					return m.status(a, ""), fmt.Errorf("%w: no backup of %s's original (sha256 %s) in %s", ErrNoBackup, m.path, a.BaseDigest, m.bk.root())
				}
				orig = a.stripped // by construction the original, byte for byte
			}
		case StateModified:
			if !m.o.Force {
				return m.status(a, ""), fmt.Errorf("%w: %s; `--force` restores the newest backup that is a known version and drops those changes", ErrModified, m.path)
			}
			var ok bool
			if _, orig, ok = m.bk.find(isKnown); !ok {
				return m.status(a, ""), fmt.Errorf("%w: no backup of a known version in %s", ErrNoBackup, m.bk.root())
			}
		}
		if err := m.replace(orig, nil, "revert"); err != nil {
			return m.status(a, ""), err
		}
		return m.reread("reverted to the original; " + m.t.advice().restart)
	})
}

// upgrade swaps an older version's blocks for the current ones (or the
// ones InstallOptions.Version asks for). The backup (if one is still
// needed) is the original, never the old patch.
func (m module) upgrade(a analysis) (Status, error) {
	patched, err := buildVersion(a.stripped, m.o.Version)
	if err != nil {
		return m.status(a, ""), err
	}
	if back, _, ok := strip(patched); !ok || !bytes.Equal(back, a.stripped) {
		return m.status(a, ""), errors.New("clientpatch: internal error: the upgrade would not revert cleanly; nothing written")
	}
	if err := m.replace(patched, a.stripped, "apply"); err != nil {
		return m.status(a, ""), err
	}
	return m.reread("upgraded from patch " + a.Version + " to " + m.o.Version + "; " + m.t.advice().restart)
}

func missedNames(p plan) string {
	names := make([]string, len(p.missed))
	for i, m := range p.missed {
		names[i] = m.name
	}
	return strings.Join(names, ", ")
}

func isKnown(d string) bool { _, ok := knownBase(d); return ok }

// module is one locked module being changed.
type module struct {
	path    string // symlinks resolved: the rename replaces the real file
	content []byte
	info    fs.FileInfo
	bk      backups
	o       InstallOptions
	t       target
}

// withModule resolves and reads path under the backup folder's lock (one
// apply or revert at a time) after clearing what killed runs left.
func withModule(path string, o InstallOptions, fn func(module) (Status, error)) (Status, error) {
	o, err := o.withDefaults()
	if err != nil {
		return Status{Module: path}, err
	}
	t := targetOf(o.Host)
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Status{Module: path, State: StateNotFound, Advice: t.advice().notFound}, fmt.Errorf("%w: %s", t.notFound(), path)
		}
		return Status{Module: path}, fmt.Errorf("clientpatch: %w", err)
	}
	m := module{path: resolved, bk: t.backups(o.Home), o: o, t: t}
	if err := os.MkdirAll(m.bk.root(), 0o700); err != nil {
		return Status{Module: resolved}, fmt.Errorf("clientpatch: backup folder: %w", err)
	}
	unlock, err := lock(filepath.Join(m.bk.root(), lockFile))
	if err != nil {
		return Status{Module: resolved}, err
	}
	defer unlock()
	m.bk.cleanPartial()
	cleanTemps(filepath.Dir(resolved))
	if m.info, err = os.Stat(resolved); err != nil {
		return Status{Module: resolved}, fmt.Errorf("clientpatch: %w", err)
	}
	// Non-blocking, a regular file only: a FIFO must not hang the apply.
	if m.content, err = fsutil.ReadRegular(resolved, maxModuleSize); err != nil {
		return Status{Module: resolved}, fmt.Errorf("clientpatch: %w", err)
	}
	return fn(m)
}

func lock(path string) (func(), error) {
	l := flock.New(path)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ok, err := l.TryLockContext(ctx, 50*time.Millisecond)
	if err != nil || !ok {
		return nil, fmt.Errorf("clientpatch: another patch apply or revert holds %s: %w", path, errors.Join(err, ctx.Err()))
	}
	return func() { _ = l.Unlock() }, nil
}

// status fills in what analyze cannot know.
func (m module) status(a analysis, advice string) Status {
	st := a.Status
	st.Module = m.path
	st.Backup, _ = m.bk.newest()
	if advice != "" {
		st.Advice = advice
	}
	return st
}

// reread inspects the file as written, with the given advice.
func (m module) reread(advice string) (Status, error) {
	st, err := Inspect(m.path, InspectOptions{Host: m.o.Host, Home: m.o.Home})
	if err == nil {
		st.Advice = advice
	}
	return st, err
}
