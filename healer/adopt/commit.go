package adopt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/casfile"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
)

// change is what one planned adopt or release writes, and what it says.
type change struct {
	res Result
	rec *Record // the record as it will be
	// cfg is the watchdog's config as it will be (nil: unchanged);
	// cfgGone: removed (release, when adopt made it and it is as adopt
	// first wrote it).
	cfg     []byte
	cfgGone bool
	added   []config.Added // what adopt puts into the config (undo of an edited config)
	files   map[int][]byte // new bytes, by index of state.files
	edits   map[int][]fileEdit
	listens []string // adopt: proxies the running daemon must serve first
	// wrappers are the stdio servers' wrappers adopt writes; unwrap those
	// release removes (nothing refers to them any more).
	wrappers, unwrap []wrapperWrite
	release          bool // the order of the writes
	host             string
	recRaw           []byte // the record as read
}

func newChange(host string, rec *Record, release bool) *change {
	return &change{rec: rec, files: map[int][]byte{}, edits: map[int][]fileEdit{}, release: release, host: host}
}

// plain are the edits of file fi as hostconfig takes them.
func (c *change) plain(fi int) []hostfile.Edit {
	out := make([]hostfile.Edit, len(c.edits[fi]))
	for i, e := range c.edits[fi] {
		out[i] = e.Edit
	}
	return out
}

// render makes each edited file's new bytes from its snapshot.
func (c *change) render(st *state) error {
	for fi := range c.edits {
		f := st.files[fi]
		out, err := hostfile.Rewrite(f.format, f.snap.Data, f.layout, c.plain(fi))
		if err != nil {
			return fmt.Errorf("%s: %w; nothing was changed", f.snap.Path, err)
		}
		c.files[fi] = out
	}
	return nil
}

// fileEdit is one URL a change rewrites, and what undoes it.
type fileEdit struct {
	hostfile.Edit
	name string // the server's
	back string // the literal that was there (From's bytes)
}

func (c *change) result() Result {
	if c == nil {
		return Result{}
	}
	return c.res
}

// writes reports whether the change writes anything at all.
func (c *change) writes() bool {
	return c != nil && (c.cfg != nil || c.cfgGone || len(c.files) > 0 || len(c.wrappers) > 0 || len(c.unwrap) > 0 ||
		!bytes.Equal(c.rec.encode(), c.recRaw))
}

// commit writes the change as one transaction: adopt writes the
// watchdog's config, waits for the running daemon to serve the new
// proxies, then the record, then the host's files; release the host's
// files, the record, then the config. Any failure undoes what was done.
func (c *change) commit(ctx context.Context, o *Options, st *state) error {
	t := newTxn(o)
	order := c.fileOrder()
	for _, fi := range order {
		f := st.files[fi]
		err := t.step("backing up "+f.snap.Path, func() error {
			bk, err := backup(o.StateDir, slug(o.Host.Name), f.snap.Path, f.snap.Data, o.Now())
			c.setBackup(f.snap.Path, bk)
			return err
		}, nil)
		if err != nil {
			return t.rollback(err)
		}
	}
	steps := []func() error{
		func() error { return c.writeConfig(t, o, st) },
		func() error { return c.waitServed(ctx, t, o) },
		func() error { return c.writeRecord(t, o, st) },
		func() error { return c.writeWrappers(t) },
		func() error { return c.writeFiles(t, st, order) },
		func() error { return c.verify(ctx, t, st, order) },
		func() error { return c.removeWrappers(t) },
	}
	if c.release {
		steps = []func() error{steps[4], steps[5], steps[2], steps[0], steps[6]}
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return t.rollback(err)
		}
	}
	c.res.Changed = true
	return nil
}

func (c *change) fileOrder() []int {
	var out []int
	for fi := range c.files {
		out = append(out, fi)
	}
	slices.Sort(out)
	return out
}

func (c *change) setBackup(path, bk string) {
	if hr := c.rec.Hosts[c.host]; hr != nil {
		for i := range hr.Files {
			if hr.Files[i].Path == path {
				hr.Files[i].Backup = bk
			}
		}
	}
}

func (c *change) writeConfig(t *txn, o *Options, st *state) error {
	if c.cfg == nil && !c.cfgGone {
		return nil
	}
	name := "writing the watchdog's config " + o.ConfigPath
	if c.cfgGone {
		return t.step("removing the watchdog's config adopt made, "+o.ConfigPath, func() error {
			return removeIfSame(st.cfg)
		}, func() error { return recreate(st.cfg) })
	}
	return t.step(name, func() error {
		if err := os.MkdirAll(filepath.Dir(o.ConfigPath), 0o700); err != nil {
			return err
		}
		return casfile.Replace(st.cfg, c.cfg, casOptions(t, name))
	}, func() error { return c.undoConfig(st) })
}

// undoConfig puts the config back as it was when it still holds what was
// written; when the user edited it since, only adopt's own lines go.
func (c *change) undoConfig(st *state) error {
	cur, err := casfile.Read(st.cfg.Path, maxConfig)
	if err != nil {
		return err
	}
	if !bytes.Equal(cur.Data, c.cfg) {
		data, all := cur.Data, true
		for _, a := range c.added {
			var ok bool
			if data, ok = a.Remove(data); !ok {
				all = false
			}
		}
		if err := casfile.Replace(cur, data, nil); err != nil {
			return err
		}
		if !all {
			return errUndone
		}
		return nil
	}
	if !st.cfg.Exists {
		return removeIfSame(cur)
	}
	return casfile.Replace(cur, st.cfg.Data, nil)
}

// removeIfSame removes the snapshot's file when it still holds its bytes.
func removeIfSame(s casfile.Snapshot) error {
	cur, err := casfile.Read(s.Path, maxConfig)
	if err != nil {
		return err
	}
	if !cur.Exists {
		return nil
	}
	if !bytes.Equal(cur.Data, s.Data) {
		return fmt.Errorf("%s: %w", s.Path, casfile.ErrConflict)
	}
	return os.Remove(s.Target)
}

// recreate writes a removed file back, unless one is there again.
func recreate(s casfile.Snapshot) error {
	if !s.Exists {
		return nil
	}
	cur, err := casfile.Read(s.Path, maxConfig)
	if err != nil {
		return err
	}
	if cur.Exists {
		return errUndone
	}
	s.Exists = false
	return casfile.Replace(cur, s.Data, nil)
}

func (c *change) waitServed(ctx context.Context, t *txn, o *Options) error {
	if len(c.listens) == 0 || o.Served == nil {
		return nil
	}
	return t.step("the running watchdog serving the new proxies", func() error { return o.Served(ctx, c.listens) }, nil)
}

func (c *change) writeRecord(t *txn, o *Options, st *state) error {
	data := c.rec.encode()
	if bytes.Equal(data, st.recRaw) {
		return nil
	}
	return t.step("writing the adoption record", func() error { return writeRecord(o.StateDir, data) },
		func() error { return writeRecord(o.StateDir, st.recRaw) })
}

func (c *change) writeFiles(t *txn, st *state, order []int) error {
	for _, fi := range order {
		name := "writing " + st.files[fi].snap.Path
		err := t.step(name, func() error { return c.writeFile(t, st, fi, name) },
			func() error { return c.undoFile(st.files[fi], fi) })
		if err != nil {
			return err
		}
	}
	return nil
}

// fileTries bounds how often one host file is edited again on its new
// content within one transaction.
const fileTries = 20

// writeFile writes host file fi by compare and swap. When the file
// changed since it was read, the same edits are made again on its new
// content, which is then what the write compares with (and what an undo
// puts back): the host's change is kept. An edit whose URL is no longer
// what it was read as (the user changed it) fails the whole transaction
// as a conflict: it is planned again from the start.
func (c *change) writeFile(t *txn, st *state, fi int, name string) error {
	f := &st.files[fi]
	plain := c.plain(fi)
	opts := casOptions(t, name)
	for try := 1; ; try++ {
		err := casfile.Replace(f.snap, c.files[fi], opts)
		if !errors.Is(err, casfile.ErrConflict) || try == fileTries {
			return err
		}
		now, rerr := casfile.Read(f.snap.Path, find.MaxFileSize)
		if rerr != nil || !now.Exists {
			return fmt.Errorf("%w: %s is gone or unreadable (%v)", casfile.ErrConflict, f.snap.Path, rerr)
		}
		out, rerr := hostfile.Rewrite(f.format, now.Data, f.layout, plain)
		if rerr != nil {
			return fmt.Errorf("%w: %w", casfile.ErrConflict, rerr)
		}
		f.snap, c.files[fi] = now, out
	}
}

// undoFile puts a host file back: whole, when it still holds what was
// written; else only the edits that still hold what they wrote.
func (c *change) undoFile(f hostFile, fi int) error {
	cur, err := casfile.Read(f.snap.Path, int64(len(f.snap.Data)+len(c.files[fi]))+1<<20)
	if err != nil {
		return err
	}
	if bytes.Equal(cur.Data, c.files[fi]) {
		return casfile.Replace(cur, f.snap.Data, nil)
	}
	now, err := hostfile.Servers(f.format, cur.Data, f.layout)
	if err != nil {
		return errUndone
	}
	var back []hostfile.Edit
	for _, e := range c.edits[fi] {
		if _, v, ok := hostfile.ValueAt(now, e.Path); ok && v == e.To {
			back = append(back, hostfile.Edit{Path: e.Path, From: e.To, To: e.From, Literal: e.back})
		}
	}
	if len(back) == 0 {
		return nil // none of ours is left in it
	}
	out, err := hostfile.Rewrite(f.format, cur.Data, f.layout, back)
	if err != nil {
		return err
	}
	return casfile.Replace(cur, out, nil)
}

// settle is how long after writing a host's files they are read again: a
// host that read its file just before it was written (Claude Code
// rewrites ~/.claude.json from what it read) writes it back within that.
const settle = 100 * time.Millisecond

// verify reads each written file back, at once and again after settle:
// every edit must hold. A host that rewrote its file from what it had
// read before (its own stale copy) has taken an edit out again: that is a
// conflict, undone and planned again, before the record says it is done.
func (c *change) verify(ctx context.Context, t *txn, st *state, order []int) error {
	return t.step("checking the written files", func() error {
		if err := c.holds(st, order); err != nil {
			return err
		}
		tm := time.NewTimer(settle)
		defer tm.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tm.C:
		}
		return c.holds(st, order)
	}, nil)
}

// holds reports, as a conflict, a written file whose edits do not hold.
func (c *change) holds(st *state, order []int) error {
	for _, fi := range order {
		f := st.files[fi]
		now := readWith(f.snap.Path, f.format, f.layout)
		if now.err != nil {
			return fmt.Errorf("%w: %w", casfile.ErrConflict, now.err)
		}
		for _, e := range c.edits[fi] {
			if _, v, ok := hostfile.ValueAt(now.servers, e.Path); !ok || v != e.To {
				return fmt.Errorf("%s: %w (another program wrote %s's old value back over the new one)", f.snap.Path, casfile.ErrConflict, e.name)
			}
		}
	}
	return nil
}

// at is the server whose URL is at path.
func at(servers []hostfile.Server, path []string) (hostfile.Server, bool) {
	i := slices.IndexFunc(servers, func(s hostfile.Server) bool { return slices.Equal(s.Path, path) })
	if i < 0 {
		return hostfile.Server{}, false
	}
	return servers[i], true
}
