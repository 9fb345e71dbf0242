package adopt

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// Release puts back the original URL of each of the host's adopted
// servers (those named, when o.Servers names some) whose value still
// holds a URL adopt wrote, and takes out of the watchdog's config the
// proxies no adopted server uses any more. A value the user changed since
// is named and left alone: the record keeps it until release --force
// forgets it. Release never writes over a value the user changed.
func Release(ctx context.Context, o Options) (Result, error) {
	o.fill()
	return transact(ctx, o, planRelease)
}

// planRelease plans the release of o's host from st.
func planRelease(_ context.Context, o *Options, st *state) (*change, error) {
	ch := newChange(o.Host.Name, st.rec, true)
	ch.recRaw = st.recRaw
	named := map[string]bool{}
	ch.writtenBack(o, st, named)
	hr := st.rec.Hosts[o.Host.Name]
	if hr == nil {
		if len(ch.edits) > 0 {
			return ch, ch.rewriteBack(st)
		}
		return ch, fmt.Errorf("%s: %w by the watchdog: there is nothing to release", o.Host.Name, ErrNotAdopted)
	}
	var used []string
	for _, fr := range slices.Clone(hr.Files) {
		for _, rs := range slices.Clone(fr.Servers) {
			if len(o.Servers) > 0 && !slices.Contains(o.Servers, rs.Name) {
				continue
			}
			named[rs.Name] = true
			if rs.Wrapper != "" {
				ch.unwrapOne(o, st, fr.Path, rs)
				continue
			}
			used = append(used, rs.Server)
			ch.releaseOne(o, st, fr.Path, rs)
		}
	}
	for _, want := range o.Servers {
		if !named[want] {
			return ch, fmt.Errorf("%s: %q was %w by the watchdog (adopted: %s)", o.Host.Name, want, ErrNotAdopted, listOr(adoptedNames(hr)))
		}
	}
	if len(named) == 0 && len(ch.edits) == 0 {
		return ch, fmt.Errorf("%s: %w by the watchdog: there is nothing to release", o.Host.Name, ErrNotAdopted)
	}
	if err := ch.rewriteBack(st); err != nil {
		return ch, err
	}
	ch.unconfigure(o, st, used)
	ch.unwrap = slices.DeleteFunc(ch.unwrap, func(w wrapperWrite) bool { return st.rec.refers(w.path) })
	return ch, nil
}

func adoptedNames(hr *HostRecord) []string {
	var out []string
	for _, fr := range hr.Files {
		for _, s := range fr.Servers {
			out = append(out, s.Name)
		}
	}
	return out
}

// writtenBack plans putting back entries released before whose file
// points at the proxy again: the host wrote it back from a copy it read
// before that release. Nothing else would ever take them back.
func (ch *change) writtenBack(o *Options, st *state, named map[string]bool) {
	for fi, f := range st.files {
		if f.err != nil {
			continue
		}
		for _, s := range f.servers {
			if len(o.Servers) > 0 && !slices.Contains(o.Servers, s.Name) {
				continue
			}
			if ch.commandWrittenBack(o, st, fi, s) {
				named[s.Name] = true
				continue
			}
			p, ok := proxyurl.Parse(s.URL)
			if !ok {
				continue
			}
			if _, active := st.rec.find(o.Host.Name, f.snap.Path, s.Path, ""); active {
				continue
			}
			rs, ok := st.rec.wasReleased(o.Host.Name, f.snap.Path, s.Path, p.Listen)
			if !ok || !proxyurl.SameListen(rs.Listen, p.Listen) {
				continue
			}
			named[s.Name] = true
			ch.edits[fi] = append(ch.edits[fi], fileEdit{Edit: hostfile.Edit{Path: s.Path, From: s.URL, To: rs.URL, Literal: rs.Literal},
				name: s.Name, back: s.Literal})
			ch.res.Lines = append(ch.res.Lines, s.Name+": back at its own URL (it pointed at the proxy again: the host wrote back a copy it read before it was released)")
		}
	}
}

// releaseOne decides for one adopted entry: put back, forget, or leave.
func (ch *change) releaseOne(o *Options, st *state, file string, rs ServerRecord) {
	say := func(format string, args ...any) {
		ch.res.Lines = append(ch.res.Lines, rs.Name+": "+fmt.Sprintf(format, args...))
	}
	forget := func() { st.rec.forget(o.Host.Name, file, rs.Path) }
	force := "`watchdog hosts release " + shellWord(o.Host.Name) + " --server " + shellWord(rs.Name) + " --force` forgets it"
	fi := st.fileOf(file)
	f := st.files[fi]
	if f.err != nil {
		if o.Force {
			forget()
			say("forgotten (--force): %v", f.err)
		} else {
			say("left as it is: %v; fix the file and release again, or %s", f.err, force)
		}
		return
	}
	cur, ok := at(f.servers, rs.Path)
	switch {
	case !ok:
		forget()
		say("gone from %s: nothing to put back", file)
	case proxyurl.SameListen(proxyurl.HostPort(cur.URL), rs.Listen):
		forget()
		ch.edits[fi] = append(ch.edits[fi], fileEdit{Edit: hostfile.Edit{Path: rs.Path, From: cur.URL, To: rs.URL, Literal: rs.Literal},
			name: rs.Name, back: cur.Literal})
		say("back at its own URL")
	case cur.URL == rs.URL:
		forget()
		say("already back at its own URL")
	case o.Force:
		forget()
		say("left alone: its URL was changed since adopt (to %s); forgotten (--force)", redacted(cur.URL))
	default:
		say("left alone: its URL was changed since adopt (to %s); the record keeps it: %s", redacted(cur.URL), force)
	}
}

// rewriteBack plans each file with its original URLs back.
func (ch *change) rewriteBack(st *state) error {
	for fi := range ch.edits {
		if err := st.files[fi].snap.Writable(); err != nil {
			return fmt.Errorf("%w; nothing was changed", err)
		}
	}
	return ch.render(st)
}

// unconfigure takes the host off the proxies of watchdog servers used
// that it no longer goes through, and removes what adopt added for those
// nobody's adopted servers use now; the config adopt made is removed when
// it is back to what adopt first wrote.
func (ch *change) unconfigure(o *Options, st *state, used []string) {
	if !st.cfg.Exists {
		return
	}
	data := st.cfg.Data
	for _, name := range slices.Compact(slices.Sorted(slices.Values(used))) {
		c := st.rec.Config[name]
		if c == nil || st.rec.usedBy(name, o.Host.Name) {
			continue
		}
		c.Users = slices.DeleteFunc(c.Users, func(u string) bool { return u == o.Host.Name })
		if st.rec.inUse(name) {
			continue
		}
		if c.Added.Text != "" {
			var ok bool
			if data, ok = c.Added.Remove(data); !ok {
				ch.res.Lines = append(ch.res.Lines, fmt.Sprintf("watchdog server %q: its proxy was left in the config (its lines were edited since)", name))
			}
		}
		delete(st.rec.Config, name)
	}
	data = ch.unwatchHost(o.Host.Name, st.rec, data)
	if len(st.rec.Hosts) == 0 && st.rec.CreatedConfig != "" && string(data) == st.rec.CreatedConfig {
		st.rec.CreatedConfig = ""
		ch.cfgGone = true
		return
	}
	if string(data) != string(st.cfg.Data) {
		ch.cfg = data
	}
}

// ReleaseAll releases every host adopt's record holds, their proxied URLs
// and their wrapped stdio servers alike (`watchdog hosts release --all`,
// which removing the package runs: no host may be left naming a wrapper
// or a proxy of a watchdog that is going). files gives each host's files
// (internal/host/find.Paths); the rest of o is as for Release (its Host
// and Servers are not read). It tries every host, and returns each one's
// result by name and the errors of those that failed.
func ReleaseAll(ctx context.Context, o Options, files func(host.Profile) []string) (map[string]Result, error) {
	adopted, err := Adopted(o.StateDir)
	if err != nil {
		return nil, err
	}
	out := map[string]Result{}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(adopted)) {
		p, ok := host.Lookup(name)
		if !ok {
			errs = append(errs, fmt.Errorf("%s: not a host this watchdog knows; its files are in adopt's record (%s)", name, RecordFile))
			continue
		}
		ho := o
		ho.Host, ho.Files, ho.Servers = p, files(p), nil
		res, err := Release(ctx, ho)
		out[name] = res
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	return out, errors.Join(errs...)
}
