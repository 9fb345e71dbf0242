package adopt

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
)

// fixture copies a host config file from internal/host/hostfile.s fixtures
// into a fresh folder and returns its path and bytes.
func fixture(t *testing.T, name, as string) (string, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "internal", "host", "hostfile", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), filepath.FromSlash(as))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// rig is one adopt setup: a host, its file, a watchdog config path and a
// state dir; ports are free unless taken.
type rig struct {
	o     Options
	taken map[string]bool
}

func newRig(t *testing.T, p host.Profile, files ...string) *rig {
	t.Helper()
	dir := t.TempDir()
	r := &rig{taken: map[string]bool{}}
	clock := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	r.o = Options{Host: p, Files: files, ConfigPath: filepath.Join(dir, "config", "config.toml"),
		StateDir: filepath.Join(dir, "state"), Secret: proxy.NewSecret(),
		Now:  func() time.Time { clock = clock.Add(time.Second); return clock },
		Free: func(addr string) bool { return !r.taken[addr] }}
	return r
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Long: a table of the host fixtures, each adopted, adopted again, and
// released: every host, the editors with no headless mode among them
// (their files with comments, trailing commas, unrelated settings and
// text that is not ASCII).
func TestAdoptThenReleaseGivesTheFileBack(t *testing.T) {
	t.Parallel()
	for _, tt := range hostFixtures {
		t.Run(tt.host+"/"+tt.fixture, func(t *testing.T) {
			t.Parallel()
			p, ok := host.Lookup(tt.host)
			if !ok {
				t.Fatalf("no profile %q", tt.host)
			}
			path, orig := fixture(t, tt.fixture, tt.as)
			r := newRig(t, p, path)
			res, err := Adopt(t.Context(), r.o)
			if err != nil || !res.Changed {
				t.Fatalf("adopt: %v %+v", err, res)
			}
			checkAdopted(t, r.o, path, orig)
			adopted, cfg := read(t, path), read(t, r.o.ConfigPath)
			if res, err := Adopt(t.Context(), r.o); err != nil || res.Changed {
				t.Fatalf("adopt again: %v %+v", err, res)
			}
			if !bytes.Equal(read(t, path), adopted) || !bytes.Equal(read(t, r.o.ConfigPath), cfg) {
				t.Fatal("adopting again changed a file")
			}
			if _, err := Release(t.Context(), r.o); err != nil {
				t.Fatalf("release: %v", err)
			}
			if got := read(t, path); !bytes.Equal(got, orig) {
				t.Fatalf("released file differs:\n%s", got)
			}
			if _, err := os.Stat(r.o.ConfigPath); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the config adopt made is still there after release: %v", err)
			}
		})
	}
}

// checkAdopted: every proxyable server now names a proxy URL whose
// [[server]] in the watchdog config stands for its original URL; the
// backup is the original; the record is private.
func checkAdopted(t *testing.T, o Options, path string, orig []byte) {
	t.Helper()
	cfg, err := config.Parse(o.ConfigPath, read(t, o.ConfigPath))
	if err != nil {
		t.Fatalf("the watchdog config adopt wrote does not load: %v", err)
	}
	upstream := map[string]string{}
	for _, s := range cfg.Servers {
		if s.ProxyListen != "" {
			upstream[proxy.URLFor(s.ProxyListen, o.Secret)] = s.URL
		}
	}
	f, _ := hostfile.FormatOf(path)
	before, _ := hostfile.Servers(f, orig, o.Host.LayoutOf(path))
	after, err := hostfile.Servers(f, read(t, path), o.Host.LayoutOf(path))
	if err != nil || len(after) != len(before) {
		t.Fatalf("servers after adopt: %v %v", after, err)
	}
	for i, s := range before {
		got := after[i].URL
		adoptable := s.Proxyable() && !s.OAuth // an OAuth sign-in is left alone
		if adoptable && upstream[got] != s.URL || !adoptable && got != s.URL {
			t.Errorf("%s: %q after adopt (was %q; proxies %v)", s.Name, got, s.URL, upstream)
		}
	}
	rec, _, err := loadRecord(o.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(o.StateDir, RecordFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record: %v %v", fi, err)
	}
	bk := ""
	for _, fr := range rec.Hosts[o.Host.Name].Files {
		if fr.Path == path {
			bk = fr.Backup
		}
	}
	if bk == "" || !bytes.Equal(read(t, bk), orig) {
		t.Fatal("the backup is not the original")
	}
}

// TestTwoHostsShareOneProxy: two hosts using one server get one proxy; it
// stays until the last of them is released. A config the user wrote is
// changed only by the lines adopt added.
func TestTwoHostsShareOneProxy(t *testing.T) {
	t.Parallel()
	cursorFile, _ := fixture(t, "cursor.json", "mcp.json")
	codexFile, _ := fixture(t, "codex.toml", "config.toml")
	r := newRig(t, host.Cursor(), cursorFile)
	mine := "# my config\n[[server]]\nname = \"nowledge-mem\"\nurl = \"http://127.0.0.1:14242/mcp\"\n"
	if err := os.MkdirAll(filepath.Dir(r.o.ConfigPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.o.ConfigPath, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	r.o.Servers = []string{"mem"}
	if _, err := Adopt(t.Context(), r.o); err != nil {
		t.Fatal(err)
	}
	codex := r.o
	codex.Host, codex.Files = host.CodexCLI(), []string{codexFile}
	if _, err := Adopt(t.Context(), codex); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(r.o.ConfigPath, read(t, r.o.ConfigPath))
	if err != nil || len(cfg.Servers) != 1 || cfg.Servers[0].ProxyListen == "" {
		t.Fatalf("one proxy for both: %+v %v", cfg.Servers, err)
	}
	if !bytes.Contains(read(t, codexFile), []byte(proxy.URLFor(cfg.Servers[0].ProxyListen, r.o.Secret))) {
		t.Fatal("codex does not name the shared proxy")
	}
	if _, err := Release(t.Context(), r.o); err != nil {
		t.Fatal(err)
	}
	if c, _ := config.Parse(r.o.ConfigPath, read(t, r.o.ConfigPath)); c.Servers[0].ProxyListen == "" {
		t.Fatal("the proxy went while codex still uses it")
	}
	if _, err := Release(t.Context(), codex); err != nil {
		t.Fatal(err)
	}
	if got := string(read(t, r.o.ConfigPath)); got != mine {
		t.Fatalf("config after both releases:\n%s\nwant\n%s", got, mine)
	}
}

// TestAdoptNamesWhatIsMissing: an unknown --server, and a host with
// nothing to adopt, are errors that change nothing.
func TestAdoptNamesWhatIsMissing(t *testing.T) {
	t.Parallel()
	path, orig := fixture(t, "cursor.json", "mcp.json")
	r := newRig(t, host.Cursor(), path)
	r.o.Servers = []string{"nope"}
	_, err := Adopt(t.Context(), r.o)
	if !errors.Is(err, ErrNoServer) || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "github, linear, mem") {
		t.Fatalf("unknown server: %v", err)
	}
	if !bytes.Equal(read(t, path), orig) {
		t.Fatal("changed")
	}
	if _, err := os.Stat(r.o.ConfigPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a config was written")
	}
	if _, err := Release(t.Context(), r.o); !errors.Is(err, ErrNotAdopted) {
		t.Fatalf("release of a host never adopted: %v", err)
	}
}

// TestAdoptWritesThroughALink: a host file that is a symbolic link (a
// dotfile manager's) stays a link; the file it names is rewritten.
func TestAdoptWritesThroughALink(t *testing.T) {
	t.Parallel()
	target, orig := fixture(t, "codex.toml", "config.toml")
	link := filepath.Join(t.TempDir(), "config.toml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, host.CodexCLI(), link)
	if _, err := Adopt(t.Context(), r.o); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	if bytes.Equal(read(t, target), orig) {
		t.Fatal("the linked file was not rewritten")
	}
	if _, err := Release(t.Context(), r.o); err != nil || !bytes.Equal(read(t, target), orig) {
		t.Fatalf("release through the link: %v", err)
	}
}

// TestPortsAreStableAndFree: a proxy's port comes from its name, and
// moves past one that is taken.
func TestPortsAreStableAndFree(t *testing.T) {
	t.Parallel()
	r := newRig(t, host.Cursor())
	r.o.fill()
	a := listenFor(&r.o, "", "cursor-mem", nil)
	if b := listenFor(&r.o, "", "cursor-mem", nil); a != b {
		t.Fatalf("ports differ for one name: %s %s", a, b)
	}
	if b := listenFor(&r.o, "127.0.0.1:14999", "cursor-mem", nil); b != "127.0.0.1:14999" {
		t.Fatalf("the address a repair prefers was not kept: %s", b)
	}
	r.taken[a] = true
	if b := listenFor(&r.o, "", "cursor-mem", nil); b == a {
		t.Fatalf("a taken port was given: %s", b)
	}
	if b := listenFor(&r.o, a, "cursor-mem", nil); b == a {
		t.Fatalf("a taken port was kept for a repair: %s", b)
	}
	delete(r.taken, a)
	if b := listenFor(&r.o, "", "cursor-mem", []config.ServerTable{{ProxyListen: "localhost:" + strings.Split(a, ":")[1]}}); b == a {
		t.Fatal("a port the config uses (spelt localhost) was given")
	}
}

// TestAdoptAProjectFileWithItsHost: Claude Code's own file and a project's
// .mcp.json naming the same server are adopted together, through one
// proxy, each in its own shape; release gives both back byte for byte.
func TestAdoptAProjectFileWithItsHost(t *testing.T) {
	t.Parallel()
	own, ownOrig := fixture(t, "claude-code.json", ".claude.json")
	proj, projOrig := fixture(t, "claude-code-project/.mcp.json", ".mcp.json")
	r := newRig(t, host.ClaudeCode(), own, proj)
	if res, err := Adopt(t.Context(), r.o); err != nil || !res.Changed {
		t.Fatalf("adopt: %v %+v", err, res)
	}
	checkAdopted(t, r.o, own, ownOrig)
	checkAdopted(t, r.o, proj, projOrig)
	f, _ := hostfile.FormatOf(own)
	a, _ := hostfile.Servers(f, read(t, own), r.o.Host.LayoutOf(own))
	b, _ := hostfile.Servers(f, read(t, proj), r.o.Host.LayoutOf(proj))
	if a[0].URL != b[0].URL {
		t.Errorf("one server, two proxies: %q and %q", a[0].URL, b[0].URL)
	}
	if _, err := Release(t.Context(), r.o); err != nil {
		t.Fatalf("release: %v", err)
	}
	if !bytes.Equal(read(t, own), ownOrig) || !bytes.Equal(read(t, proj), projOrig) {
		t.Fatal("release did not give both files back byte for byte")
	}
}
