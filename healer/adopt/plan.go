package adopt

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// verdict is what adopt does with one server entry.
type verdict int

const (
	skip    verdict = iota // left alone, for pick.why
	adoptIt                // routed through the proxy
	repair                 // a proxy URL adopt wrote, mended (pick.why says what was wrong)
	already                // goes through the served proxy with the current secret
	refuse                 // named with --server, and cannot be adopted: the run fails
	wrapIt                 // a stdio server: its command becomes a wrapper that runs it under `watchdog stdio`
	rewrap                 // a wrapper adopt wrote, written again (pick.why says what was wrong)
	wrapped                // runs through its wrapper as it should
)

// proxies reports whether the verdict routes a server through a proxy.
func (v verdict) proxies() bool { return v == adoptIt || v == repair || v == already }

// pick is one server entry and what adopt does with it.
type pick struct {
	verdict verdict
	file    int
	server  hostfile.Server
	why     string
	err     error // refuse: the error to fail with
	// upstream is the server's own URL, literal its original bytes (from
	// the entry, or from the record for a repair); prefer the address to
	// keep (a repair's old one).
	upstream, literal, prefer string
	wd, listen                string // the proxy it goes through
	added                     config.Added
	quiet                     bool // a skip not worth a line (stdio)
	unwritable                bool // a skip: its file cannot be written
	wrap                      *wrapPlan
}

// planAdopt plans the adoption of o's host from st.
func planAdopt(ctx context.Context, o *Options, st *state) (*change, error) {
	ch := newChange(o.Host.Name, st.rec, false)
	ch.recRaw = st.recRaw
	cfgData, created := st.cfg.Data, st.rec.CreatedConfig
	if !st.cfg.Exists {
		text, err := newConfigText(ctx, o)
		if err != nil {
			return ch, err
		}
		cfgData = []byte(text)
		if len(st.rec.Hosts) == 0 {
			st.rec.CreatedConfig = string(cfgData)
		}
	}
	tables, err := config.ServerTables(cfgData)
	if err != nil {
		return ch, fmt.Errorf("the watchdog's config %s: %w; fix it, then adopt again", o.ConfigPath, err)
	}
	picks, err := judgeAll(ctx, o, st, tables)
	if err != nil {
		return ch, err
	}
	watching := ""
	if slices.ContainsFunc(picks, func(p pick) bool { return p.verdict.proxies() }) {
		if watching, err = ch.configure(o, st, cfgData, picks); err != nil {
			return ch, err
		}
	} else {
		st.rec.CreatedConfig = created // stdio servers alone: the watchdog's config is not theirs to make
	}
	if err := ch.rewrite(o, st, picks); err != nil {
		return ch, err
	}
	ch.say(o, st, picks)
	if watching != "" {
		ch.res.Lines = append(ch.res.Lines, watching)
	}
	return ch, nil
}

// configure plans the watchdog's config with the proxies of picks, and
// watching the host; it returns the line that says the host is watched
// now ("" when it was).
func (ch *change) configure(o *Options, st *state, cfgData []byte, picks []pick) (string, error) {
	cfgData, err := configure(o, cfgData, picks)
	if err != nil {
		return "", err
	}
	cfgData, watching, err := watchHost(o, cfgData, st.rec, picks)
	if err != nil {
		return "", err
	}
	if !st.cfg.Exists || !slices.Equal(cfgData, st.cfg.Data) {
		ch.cfg = cfgData
	}
	return watching, nil
}

// judgeAll judges every entry of the host's files (those named, when
// o.Servers names some), and fails when a named one cannot be adopted.
func judgeAll(ctx context.Context, o *Options, st *state, tables []config.ServerTable) ([]pick, error) {
	var picks []pick
	named := map[string]bool{}
	var all []string
	for fi, f := range st.files {
		if f.err != nil {
			if slices.Contains(o.Files, f.snap.Path) {
				picks = append(picks, pick{verdict: skip, file: fi, why: fmt.Sprintf("%v, then adopt again; its servers were left alone", f.err)})
			}
			continue
		}
		unwritable := f.snap.Writable()
		for _, s := range f.servers {
			all = append(all, s.Name)
			if len(o.Servers) > 0 && !slices.Contains(o.Servers, s.Name) {
				continue
			}
			named[s.Name] = true
			p := judge(ctx, o, st, tables, fi, s)
			if unwritable != nil && (p.verdict == adoptIt || p.verdict == repair || p.verdict == wrapIt) {
				p = pick{verdict: skip, file: fi, server: s, quiet: true, unwritable: true}
			}
			picks = append(picks, p)
		}
		if unwritable != nil && slices.ContainsFunc(picks, func(p pick) bool { return p.file == fi && p.unwritable }) {
			picks = append(picks, pick{verdict: skip, file: fi, why: fmt.Sprintf("%v; its servers were left alone", unwritable)})
		}
	}
	for _, want := range o.Servers {
		if !named[want] {
			return nil, fmt.Errorf("%s has no server %q in %s (%w); its servers: %s%s", o.Host.Name, want, st.paths(), ErrNoServer, listOr(all),
				strings.Join(append([]string{""}, fileWhys(picks)...), "; "))
		}
	}
	for _, p := range picks {
		if p.verdict == refuse {
			return nil, p.err
		}
	}
	if !slices.ContainsFunc(picks, func(p pick) bool { return p.verdict != skip }) {
		var why []string
		said := map[[3]string]bool{} // an entry named twice says so once
		for _, p := range picks {
			if p.server.Name == "" || p.quiet {
				continue
			}
			if key := [3]string{st.files[p.file].snap.Path, p.server.Name, p.why}; !said[key] {
				said[key] = true
				why = append(why, p.server.Name+" in "+st.where(p)+": "+p.why)
			}
		}
		return nil, fmt.Errorf("%s has no server the watchdog's proxy can stand in front of, nor a stdio server it can run under `watchdog stdio`, in %s (%w)%s",
			o.Host.Name, st.paths(), ErrNoServer, listed(append(why, fileWhys(picks)...)))
	}
	return picks, nil
}

// fileWhys are the lines of picks that say why a whole file was left alone.
func fileWhys(picks []pick) []string {
	var out []string
	for _, p := range picks {
		if p.server.Name == "" {
			out = append(out, p.why)
		}
	}
	return out
}

// paths names the host's files adopt read.
func (st *state) paths() string {
	var out []string
	for _, f := range st.files {
		out = append(out, f.snap.Path)
	}
	if len(out) == 0 {
		return "no config file (none was found: `watchdog hosts` says where it looks)"
	}
	return strings.Join(out, ", ")
}

// where is the entry of p's server: its file, and its line when known.
func (st *state) where(p pick) string {
	at := st.files[p.file].snap.Path
	if line := cmp.Or(p.server.Line, p.server.CommandLine); line > 0 {
		at += " line " + strconv.Itoa(line)
	}
	return at
}

func listed(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return ": " + strings.Join(lines, "; ")
}

func listOr(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(slices.Compact(slices.Sorted(slices.Values(names))), ", ")
}

// judge decides what adopt does with server s of file fi.
func judge(ctx context.Context, o *Options, st *state, tables []config.ServerTable, fi int, s hostfile.Server) pick {
	p := pick{file: fi, server: s, upstream: s.URL, literal: s.Literal}
	named := slices.Contains(o.Servers, s.Name)
	if s.Transport == host.Stdio {
		return judgeStdio(o, st, p)
	}
	if listen, ok := proxyAddress(s.URL, tables, st.rec); ok {
		return judgeProxied(o, st, tables, p, listen)
	}
	if why := s.Unproxyable(); why != "" {
		p.why, p.quiet = why, s.Transport == "stdio" && !named
		return refuseIfNamed(st, p, named, " cannot go through the watchdog's proxy")
	}
	if !s.Editable {
		p.why = "its URL is written in a way adopt cannot rewrite in place (a YAML block, or a value over several lines): write it on one line, then adopt again"
		return refuseIfNamed(st, p, named, "")
	}
	if signsInWithOAuth(ctx, o, s) {
		const why = "it signs in with OAuth: its tokens are bound to its own URL (RFC 8707), so no proxy can stand in for it; left alone"
		switch {
		case named && !o.Force:
			p.verdict, p.err = refuse, fmt.Errorf("%s in %s %w: its tokens are bound to its own URL, and through the proxy its sign-in would fail; nothing was changed (--force adopts it anyway)",
				s.Name, st.where(p), ErrOAuth)
			return p
		case !named:
			p.why = why
			return p
		}
		p.why = "warning: it signs in with OAuth, and its sign-in will fail through the proxy (adopted anyway: --force); `watchdog hosts release " + shellWord(o.Host.Name) + " --server " + shellWord(s.Name) + "` puts it back"
	}
	p.verdict = adoptIt
	return p
}

// refuseIfNamed makes p a refusal when its server was named with
// --server: the error names the server and where its entry is, says what
// (" cannot go through the watchdog's proxy", or ""), and p.why.
func refuseIfNamed(st *state, p pick, named bool, what string) pick {
	if named {
		p.verdict, p.err = refuse, fmt.Errorf("%s in %s%s (%w): %s", p.server.Name, st.where(p), what, ErrNoServer, p.why)
	}
	return p
}

// signsInWithOAuth: the entry says so (an oauth block), or the server
// does (probed). An entry with a static Authorization header or token
// signs in by that, which passes through the proxy.
func signsInWithOAuth(ctx context.Context, o *Options, s hostfile.Server) bool {
	switch {
	case s.StaticAuth:
		return false
	case s.OAuth:
		return true
	case o.SignIn == nil:
		return false
	}
	return o.SignIn(ctx, s.URL) == SignInOAuth
}

// isProxyURL reports whether url has a watchdog proxy's shape.
func isProxyURL(url string) bool {
	_, ok := proxyurl.Parse(url)
	return ok
}

// proxyAddress is the proxy address s's URL points at, when it is one: a
// URL of a proxy's shape, or one on a loopback port the watchdog's config
// or adopt's record has a proxy on.
func proxyAddress(url string, tables []config.ServerTable, rec *Record) (string, bool) {
	if p, ok := proxyurl.Parse(url); ok {
		return p.Listen, true
	}
	hp := proxyurl.HostPort(url)
	for _, t := range tables {
		if t.ProxyListen != "" && proxyurl.SameListen(hp, t.ProxyListen) {
			return hp, true
		}
	}
	for _, hr := range rec.Hosts {
		for _, fr := range hr.Files {
			for _, s := range fr.Servers {
				if proxyurl.SameListen(hp, s.Listen) {
					return hp, true
				}
			}
		}
	}
	for _, e := range rec.Released {
		if proxyurl.SameListen(hp, e.Listen) {
			return hp, true
		}
	}
	return "", false
}

// judgeProxied decides for an entry that points at a watchdog proxy: it
// is never taken for a server's own URL. One adopt wrote is mended from
// its record; one the config has by hand, from the config.
func judgeProxied(o *Options, st *state, tables []config.ServerTable, p pick, listen string) pick {
	s, file := p.server, st.files[p.file].snap.Path
	if rs, ok := st.rec.find(o.Host.Name, file, s.Path, listen); ok {
		p.upstream, p.literal, p.prefer, p.wd = rs.URL, rs.Literal, rs.Listen, rs.Server
	} else if rs, ok := st.rec.wasReleased(o.Host.Name, file, s.Path, listen); ok {
		p.upstream, p.literal, p.prefer = rs.URL, rs.Literal, rs.Listen
	} else if t, ok := tableListening(tables, listen); ok {
		p.upstream, p.literal, p.prefer = t.URL, "", t.ProxyListen
	} else {
		p.why = fmt.Sprintf("it points at a watchdog proxy on %s that neither the watchdog's config nor adopt's record knows (unknown proxy): put the server's own URL back in %s, then adopt again", listen, file)
		return refuseIfNamed(st, p, slices.Contains(o.Servers, s.Name), "")
	}
	if isProxyURL(p.upstream) || p.upstream == "" {
		p.why = "adopt's record names no server of its own for it: put the server's own URL back in " + file + ", then adopt again"
		return p
	}
	t, served := tableOf(tables, p.upstream)
	switch {
	case served && s.URL == proxyurl.For(t.ProxyListen, o.Secret):
		p.verdict, p.wd, p.listen = already, t.Name, t.ProxyListen
		return p
	case !served:
		p.why = "repaired: its proxy was gone from the watchdog's config"
	case !proxyurl.SameListen(t.ProxyListen, listen):
		p.why = "repaired: its proxy moved to " + t.ProxyListen
	default:
		p.why = "repaired: it held an old secret, which the proxy answers with 404"
	}
	p.verdict = repair
	return p
}

// tableOf is the [[server]] of url that has a proxy, if any.
func tableOf(tables []config.ServerTable, url string) (config.ServerTable, bool) {
	for _, t := range tables {
		if t.URL == url && t.ProxyListen != "" {
			return t, true
		}
	}
	return config.ServerTable{}, false
}

func tableListening(tables []config.ServerTable, listen string) (config.ServerTable, bool) {
	for _, t := range tables {
		if t.ProxyListen != "" && proxyurl.SameListen(t.ProxyListen, listen) {
			return t, true
		}
	}
	return config.ServerTable{}, false
}

// rewrite plans each file's new bytes, the wrappers and the record.
func (ch *change) rewrite(o *Options, st *state, picks []pick) error {
	for _, p := range picks {
		if p.wrap != nil && p.verdict != skip {
			ch.planWrap(o, st, p)
			continue
		}
		if p.verdict != adoptIt && p.verdict != repair {
			continue
		}
		f := st.files[p.file]
		to := proxyurl.For(p.listen, o.Secret)
		ch.edits[p.file] = append(ch.edits[p.file], fileEdit{Edit: hostfile.Edit{Path: p.server.Path, From: p.server.URL, To: to},
			name: p.server.Name, back: p.server.Literal})
		st.rec.put(o.Host.Name, f.snap.Path, "", ServerRecord{Name: p.server.Name, Path: p.server.Path, URL: p.upstream,
			Literal: p.literal, Listen: p.listen, Server: p.wd})
		st.rec.use(p.wd, o.Host.Name, p.added)
		ch.listens = append(ch.listens, p.listen)
	}
	if err := ch.render(st); err != nil {
		return err
	}
	if ch.cfg != nil {
		if err := st.cfg.Writable(); err != nil {
			return fmt.Errorf("the watchdog's config: %w; nothing was changed", err)
		}
	}
	return nil
}

// say writes a line per server, and what the host must do. A server left
// alone is named with its file: the same name may be in several.
func (ch *change) say(o *Options, st *state, picks []pick) {
	for _, p := range picks {
		name := p.server.Name
		switch {
		case p.verdict == skip && p.quiet:
		case p.verdict == skip && name == "":
			ch.res.Lines = append(ch.res.Lines, p.why)
		case p.verdict == skip:
			ch.res.Lines = append(ch.res.Lines, name+": left alone: "+p.why+" ("+st.where(p)+")")
		case p.verdict == already:
			ch.res.Lines = append(ch.res.Lines, name+": already goes through the watchdog's proxy")
			ch.res.Listens = append(ch.res.Listens, p.listen)
		case p.wrap != nil && p.verdict != skip:
			ch.res.Lines = append(ch.res.Lines, p.wrapLine())
		default:
			line := fmt.Sprintf("%s: now through the watchdog's proxy on %s (watchdog server %q)", name, p.listen, p.wd)
			if p.why != "" {
				line = name + ": " + p.why + "; " + strings.TrimPrefix(line, name+": ")
			}
			ch.res.Lines = append(ch.res.Lines, line)
			ch.res.Listens = append(ch.res.Listens, p.listen)
		}
	}
	ch.res.RestartHost = ch.writes() && len(ch.files) > 0 && !o.Host.ReadsConfigLive
}
