package adopt

import (
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/hostconfig"
)

// Errors callers branch on.
var (
	// ErrNoServer: a server named with --server is not in the host's files,
	// or is not one the proxy can stand in front of.
	ErrNoServer = errors.New("no such server to adopt")
	// ErrNotAdopted: release of a host adopt never changed.
	ErrNotAdopted = errors.New("not adopted")
	// ErrChanged: release found adopted URLs changed since (--force puts
	// the originals back anyway).
	ErrChanged = errors.New("adopted URLs changed since")
)

// Options say which host to adopt or release, and where things are.
type Options struct {
	Host  host.Profile
	Files []string // the host's config files (monitor/hosts.Paths)
	// Servers limits adopt to these server names; empty: every one the
	// proxy can stand in front of.
	Servers    []string
	ConfigPath string // the watchdog's config file; it may not exist yet
	StateDir   string
	Secret     string // the proxy's (proxy.LoadSecret)
	Force      bool   // release: put the originals back over changed values
	// Now and Free are the clock and the check that an address can be
	// listened on; nil: time.Now and a real listen.
	Now  func() time.Time
	Free func(addr string) bool
}

// Result says what was done, a line each, and whether the host must be
// restarted to read its changed config.
type Result struct {
	Lines       []string
	RestartHost bool
	Changed     bool
}

// BasePort is where the proxies adopt configures start: each gets a port
// from its name (so it stays the same across adopt and release), moving up
// past ports in use.
const BasePort = 14300

// plan is one server to adopt.
type plan struct {
	file   int // index in Options.Files
	server hostconfig.Server
	wd     string // watchdog server name
	listen string
	added  config.Added
}

// Adopt routes the host's servers through the proxy.
func Adopt(o Options) (Result, error) {
	o.fill()
	rec, err := loadRecord(o.StateDir)
	if err != nil {
		return Result{}, err
	}
	files, err := readAll(o)
	if err != nil {
		return Result{}, err
	}
	cfgData, existed, err := readConfig(o.ConfigPath)
	if err != nil {
		return Result{}, err
	}
	if !existed {
		cfgData = []byte(newConfigText())
		if len(rec.Hosts) == 0 {
			rec.CreatedConfig = string(cfgData)
		}
	}
	plans, res, err := choose(o, files, cfgData)
	if err != nil || len(plans) == 0 {
		return res, err
	}
	if cfgData, plans, err = configure(o, cfgData, plans); err != nil {
		return Result{}, err
	}
	return apply(o, rec, files, cfgData, plans, res)
}

// newConfigText starts a watchdog config where there was none: the
// built-in servers written out, so that the file keeps them.
func newConfigText() string {
	return "# The watchdog's config, started by `watchdog hosts adopt`: see the README.\n\n" + config.DefaultServersText()
}

func (o *Options) fill() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Free == nil {
		o.Free = func(addr string) bool {
			l, err := net.Listen("tcp", addr)
			if err != nil {
				return false
			}
			_ = l.Close()
			return true
		}
	}
}

// hostFile is one of the host's files as read.
type hostFile struct {
	path    string
	format  hostconfig.Format
	data    []byte
	servers []hostconfig.Server
}

func readAll(o Options) ([]hostFile, error) {
	if len(o.Files) == 0 {
		return nil, fmt.Errorf("%s: no config file of it was found (it keeps its servers in %s)", o.Host.Name, describeConfig(o.Host))
	}
	var out []hostFile
	for _, path := range o.Files {
		f := hostFile{path: path}
		var err error
		if f.format, err = hostconfig.FormatOf(path); err != nil {
			return nil, err
		}
		if f.data, err = readFile(path); err != nil {
			return nil, err
		}
		if f.servers, err = hostconfig.Servers(f.format, f.data, o.Host.LayoutOf(path)); err != nil {
			return nil, fmt.Errorf("%s: %w; nothing was changed", path, err)
		}
		out = append(out, f)
	}
	return out, nil
}

func describeConfig(p host.Profile) string {
	var names []string
	for _, c := range p.Config {
		names = append(names, c.Names...)
	}
	return strings.Join(names, ", ")
}

// choose picks the servers to adopt: those named, or every proxyable one,
// leaving out those already pointed at a proxy.
func choose(o Options, files []hostFile, cfgData []byte) ([]plan, Result, error) {
	tables, err := config.ServerTables(cfgData)
	if err != nil {
		return nil, Result{}, fmt.Errorf("the watchdog's config %s: %w", o.ConfigPath, err)
	}
	proxies := map[string]bool{}
	for _, t := range tables {
		if t.ProxyListen != "" {
			proxies[t.ProxyListen] = true
		}
	}
	var plans []plan
	var res Result
	var proxyable []string
	for i, f := range files {
		for _, s := range f.servers {
			if !s.Proxyable() {
				continue
			}
			proxyable = append(proxyable, s.Name)
			if len(o.Servers) > 0 && !slices.Contains(o.Servers, s.Name) {
				continue
			}
			if proxies[addrOf(s.URL)] {
				res.Lines = append(res.Lines, s.Name+": already goes through the watchdog's proxy")
				continue
			}
			plans = append(plans, plan{file: i, server: s})
		}
	}
	for _, want := range o.Servers {
		if !slices.Contains(proxyable, want) {
			return nil, Result{}, fmt.Errorf("%s has no server %q the proxy can stand in front of (%w); its Streamable HTTP servers: %s",
				o.Host.Name, want, ErrNoServer, listOr(proxyable))
		}
	}
	if len(plans) == 0 && len(res.Lines) == 0 {
		return nil, res, fmt.Errorf("%s has no Streamable HTTP server to adopt (%w)", o.Host.Name, ErrNoServer)
	}
	return plans, res, nil
}

func listOr(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// configure gives each plan a proxy in the watchdog's config: the one a
// [[server]] of the same URL has, or one added to it, or a new [[server]].
func configure(o Options, cfgData []byte, plans []plan) ([]byte, []plan, error) {
	for i := range plans {
		p := &plans[i]
		tables, err := config.ServerTables(cfgData)
		if err != nil {
			return nil, nil, err
		}
		j := slices.IndexFunc(tables, func(t config.ServerTable) bool { return t.URL == p.server.URL })
		switch {
		case j >= 0 && tables[j].ProxyListen != "":
			p.wd, p.listen = tables[j].Name, tables[j].ProxyListen
		case j >= 0:
			p.wd, p.listen = tables[j].Name, freePort(o, tables[j].Name, tables)
			cfgData, p.added = config.AddProxyListen(cfgData, tables[j], p.listen)
		default:
			p.wd = uniqueName(slug(o.Host.Name)+"-"+slug(p.server.Name), tables)
			p.listen = freePort(o, p.wd, tables)
			cfgData, p.added = config.AddServer(cfgData, p.wd, p.server.URL, p.listen, o.Host.Name+": "+p.server.Name)
		}
	}
	if _, err := config.Parse(o.ConfigPath, cfgData); err != nil {
		return nil, nil, fmt.Errorf("the watchdog's config would not load with the new proxies, so nothing was changed: %w", err)
	}
	return cfgData, plans, nil
}

// freePort picks the proxy's address for watchdog server name: a port
// from the name, moved up past those the config uses or that are taken.
func freePort(o Options, name string, tables []config.ServerTable) string {
	used := map[string]bool{}
	for _, t := range tables {
		used[t.ProxyListen] = true
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	start := int(h.Sum32() % 500)
	for k := range 1000 {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(BasePort+(start+k)%1000))
		if !used[addr] && o.Free(addr) {
			return addr
		}
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(BasePort+start))
}

func uniqueName(base string, tables []config.ServerTable) string {
	name := base
	for n := 2; slices.ContainsFunc(tables, func(t config.ServerTable) bool { return strings.EqualFold(t.Name, name) }); n++ {
		name = base + "-" + strconv.Itoa(n)
	}
	return name
}

// slug makes a name fit for a watchdog server name: letters, digits, '.',
// '_' and '-', lower case, at most 30.
func slug(s string) string {
	out := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, s)
	out = strings.Trim(out, "-.")
	if len(out) > 30 {
		out = out[:30]
	}
	if out == "" {
		out = "server"
	}
	return out
}

func addrOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

// apply writes: backups, the watchdog's config, the record, the hosts' files.
func apply(o Options, rec *Record, files []hostFile, cfgData []byte, plans []plan, res Result) (Result, error) {
	edits := map[int][]hostconfig.Edit{}
	for _, p := range plans {
		to := proxy.URLFor(p.listen, o.Secret)
		edits[p.file] = append(edits[p.file], hostconfig.Edit{Path: p.server.Path, From: p.server.URL, To: to})
	}
	out := map[int][]byte{}
	for i, e := range edits {
		b, err := hostconfig.Rewrite(files[i].format, files[i].data, o.Host.LayoutOf(files[i].path), e)
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w; nothing was changed", files[i].path, err)
		}
		out[i] = b
	}
	hr := rec.Hosts[o.Host.Name]
	if hr == nil {
		hr = &HostRecord{}
		rec.Hosts[o.Host.Name] = hr
	}
	for i := range out {
		bk, err := backup(o.StateDir, slug(o.Host.Name), files[i].path, files[i].data, o.Now())
		if err != nil {
			return Result{}, err
		}
		fr := FileRecord{Path: files[i].path, Backup: bk}
		for _, p := range plans {
			if p.file == i {
				fr.Servers = append(fr.Servers, ServerRecord{Name: p.server.Name, Path: p.server.Path, URL: p.server.URL,
					Literal: p.server.Literal, ProxyURL: proxy.URLFor(p.listen, o.Secret), Server: p.wd})
			}
		}
		hr.Files = mergeFile(hr.Files, fr)
	}
	for _, p := range plans {
		rec.use(p.wd, o.Host.Name, p.added)
	}
	if err := writeConfig(o.ConfigPath, cfgData); err != nil {
		return Result{}, err
	}
	if err := rec.save(o.StateDir); err != nil {
		return Result{}, fmt.Errorf("%w (the watchdog's config has the new proxies; the host's files are unchanged)", err)
	}
	for i, b := range out {
		if err := writeFile(files[i].path, b); err != nil {
			return Result{}, fmt.Errorf("%w (the watchdog's config has the new proxies; %s is unchanged)", err, files[i].path)
		}
	}
	for _, p := range plans {
		res.Lines = append(res.Lines, fmt.Sprintf("%s: now through the watchdog's proxy on %s (watchdog server %q)", p.server.Name, p.listen, p.wd))
	}
	res.Changed = true
	res.RestartHost = !o.Host.ReadsConfigLive
	return res, nil
}

// mergeFile adds fr's servers to the record of the same file, if any.
func mergeFile(have []FileRecord, fr FileRecord) []FileRecord {
	for i := range have {
		if have[i].Path == fr.Path {
			have[i].Servers = append(have[i].Servers, fr.Servers...)
			return have
		}
	}
	return append(have, fr)
}
