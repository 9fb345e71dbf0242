package adopt

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
)

// The measurements issue 45 reports, each as a test.

// serversIn reads the servers of a host file, by name.
func serversIn(t *testing.T, p host.Profile, path string) map[string]hostfile.Server {
	t.Helper()
	f, _ := hostfile.FormatOf(path)
	ss, err := hostfile.Servers(f, read(t, path), p.LayoutOf(path))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]hostfile.Server{}
	for _, s := range ss {
		out[s.Name] = s
	}
	return out
}

// edit replaces old with new once in the file, as the host's own CLI or
// the user would.
func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b := read(t, path)
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s holds no %q", path, old)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

func lines(res Result) string { return strings.Join(res.Lines, "\n") }

// Measured: a URL the user changed with the host's own CLI after adopt
// was put back to the old one by release --force, and plain release
// refused the whole host over that one server. Now release puts back only
// what still holds the proxy's URL, names what the user changed and leaves
// it; --force only forgets it.
func TestReleaseLeavesWhatTheUserChanged(t *testing.T) {
	t.Parallel()
	path, orig := fixture(t, "cursor.json", "mcp.json")
	r := newRig(t, host.Cursor(), path)
	if _, err := Adopt(t.Context(), r.o); err != nil {
		t.Fatal(err)
	}
	linear := serversIn(t, r.o.Host, path)["linear"]
	edit(t, path, linear.Literal, `"https://mcp.linear.app/mcp"`)
	userFile := bytes.Replace(orig, []byte(`"https://mcp.linear.app/sse"`), []byte(`"https://mcp.linear.app/mcp"`), 1)

	res, err := Release(t.Context(), r.o)
	if err != nil {
		t.Fatalf("release: %v", err)
	}
	if got := read(t, path); !bytes.Equal(got, userFile) {
		t.Fatalf("after release:\n%s\nwant mem back and the user's linear URL kept:\n%s", got, userFile)
	}
	if l := lines(res); !strings.Contains(l, "mem: back at its own URL") || !strings.Contains(l, "linear: left alone: its URL was changed since adopt") ||
		!strings.Contains(l, "--server linear --force") {
		t.Fatalf("release said:\n%s", l)
	}
	if a, _ := Adopted(r.o.StateDir); len(a[r.o.Host.Name]) != 1 || a[r.o.Host.Name][0] != "linear" {
		t.Fatalf("the record keeps %v; want linear alone", a)
	}
	agree(t, r.o)

	r.o.Force, r.o.Servers = true, []string{"linear"}
	res, err = Release(t.Context(), r.o)
	if err != nil || !strings.Contains(lines(res), "forgotten (--force)") {
		t.Fatalf("release --force: %v\n%s", err, lines(res))
	}
	if got := read(t, path); !bytes.Equal(got, userFile) {
		t.Fatalf("--force wrote over the user's value:\n%s", got)
	}
	if a, _ := Adopted(r.o.StateDir); len(a) != 0 {
		t.Fatalf("the record still holds %v", a)
	}
	if _, err := os.Stat(r.o.ConfigPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the config adopt made outlived every adoption: %v", err)
	}
}

// release --server puts back that server alone.
func TestReleaseOneServer(t *testing.T) {
	t.Parallel()
	path, orig := fixture(t, "cursor.json", "mcp.json")
	r := newRig(t, host.Cursor(), path)
	if _, err := Adopt(t.Context(), r.o); err != nil {
		t.Fatal(err)
	}
	one := r.o
	one.Servers = []string{"mem"}
	if _, err := Release(t.Context(), one); err != nil {
		t.Fatal(err)
	}
	now := serversIn(t, r.o.Host, path)
	if now["mem"].URL != "http://127.0.0.1:14242/mcp" || !strings.Contains(now["linear"].URL, "127.0.0.1:") {
		t.Fatalf("after release --server mem: mem %s, linear %s", now["mem"].URL, now["linear"].URL)
	}
	agree(t, r.o)
	one.Servers = []string{"nope"}
	if _, err := Release(t.Context(), one); !errors.Is(err, ErrNotAdopted) || !strings.Contains(err.Error(), "linear") {
		t.Fatalf("release --server of a server not adopted: %v", err)
	}
	if _, err := Release(t.Context(), r.o); err != nil || !bytes.Equal(read(t, path), orig) {
		t.Fatalf("release of the rest: %v", err)
	}
}

// Measured: after the user took the server's proxy_listen out of the
// watchdog's config, adopt again took the proxy URL in the host's file for
// the server's own: a proxy in front of a dead proxy, its secret written
// into config.toml. Now adopt knows the URL from its record and mends it
// from the server's own URL; the secret never reaches the config, and
// release still gives the original back byte for byte.
func TestAdoptAgainAfterTheProxyWasTakenOut(t *testing.T) {
	t.Parallel()
	path, orig := fixture(t, "codex.toml", "config.toml")
	r := newRig(t, host.CodexCLI(), path)
	r.o.Servers = []string{"tracker"}
	if _, err := Adopt(t.Context(), r.o); err != nil {
		t.Fatal(err)
	}
	cfg := string(read(t, r.o.ConfigPath))
	i := strings.Index(cfg, "proxy_listen = ")
	if i < 0 {
		t.Fatal("no proxy_listen")
	}
	line := cfg[i : i+strings.Index(cfg[i:], "\n")+1]
	if err := os.WriteFile(r.o.ConfigPath, []byte(strings.Replace(cfg, line, "", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Adopt(t.Context(), r.o)
	if err != nil || !strings.Contains(lines(res), "repaired: its proxy was gone from the watchdog's config") {
		t.Fatalf("adopt again: %v\n%s", err, lines(res))
	}
	agree(t, r.o)
	c, err := config.Parse(r.o.ConfigPath, read(t, r.o.ConfigPath))
	if err != nil {
		t.Fatal(err)
	}
	var listen string
	for _, s := range c.Servers {
		if s.URL == "http://localhost:8931/mcp" {
			listen = s.ProxyListen
		}
	}
	if got := serversIn(t, r.o.Host, path)["tracker"].URL; listen == "" || got != proxy.URLFor(listen, r.o.Secret) {
		t.Fatalf("tracker goes to %s; the config's proxy for its own URL listens on %q", got, listen)
	}
	if _, err := Release(t.Context(), r.o); err != nil || !bytes.Equal(read(t, path), orig) {
		t.Fatalf("release: %v\n%s", err, read(t, path))
	}
}

// Measured: after the documented secret change the host got 404 while
// adopt again compared host and port only and kept the old secret. Now
// adopt again writes the current secret; release still puts the original back.
func TestAdoptAgainAfterTheSecretChanged(t *testing.T) {
	t.Parallel()
	path, orig := fixture(t, "gemini.json", "settings.json")
	r := newRig(t, host.GeminiCLI(), path)
	if _, err := Adopt(t.Context(), r.o); err != nil {
		t.Fatal(err)
	}
	old := serversIn(t, r.o.Host, path)["mem"].URL
	r.o.Secret = proxy.NewSecret()
	res, err := Adopt(t.Context(), r.o)
	if err != nil || !strings.Contains(lines(res), "repaired: it held an old secret") {
		t.Fatalf("adopt with a new secret: %v\n%s", err, lines(res))
	}
	now := serversIn(t, r.o.Host, path)["mem"].URL
	if now == old || !strings.Contains(now, r.o.Secret) {
		t.Fatalf("mem still goes to the old secret's URL")
	}
	if strings.Contains(lines(res), r.o.Secret) {
		t.Fatal("adopt's output holds the secret")
	}
	agree(t, r.o)
	if _, err := Release(t.Context(), r.o); err != nil || !bytes.Equal(read(t, path), orig) {
		t.Fatalf("release: %v\n%s", err, read(t, path))
	}
}

// A proxy URL neither the config nor the record knows is never taken for
// a server's own: left alone with the reason, refused when named.
func TestUnknownProxyIsNoUpstream(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	stray := proxy.URLFor("127.0.0.1:14777", proxy.NewSecret())
	body := `{"mcpServers": {"old": {"url": "` + stray + `"}, "mem": {"url": "http://127.0.0.1:14242/mcp"}}}`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, host.Cursor(), path)
	res, err := Adopt(t.Context(), r.o)
	if err != nil || !strings.Contains(lines(res), "old: left alone: it points at a watchdog proxy on 127.0.0.1:14777") {
		t.Fatalf("adopt: %v\n%s", err, lines(res))
	}
	if strings.Contains(string(read(t, r.o.ConfigPath)), "14777") {
		t.Fatal("a stray proxy URL went into the config")
	}
	agree(t, r.o)
	r.o.Servers = []string{"old"}
	if _, err := Adopt(t.Context(), r.o); !errors.Is(err, ErrNoServer) || !strings.Contains(err.Error(), "unknown proxy") {
		t.Fatalf("adopt --server old: %v", err)
	}
}

// Measured bad input: a UTF-8 BOM was rejected; one non-http URL blocked
// the whole host with an error naming a config line never written;
// duplicate names were reported with the wrong cause; a read-only file was
// silently replaced. Now each is said, for that server or file alone.
func TestBadInputSaidAndLeftAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bomFile := "\uFEFF{\"mcpServers\": {\n  \"a\": {\"url\": \"ws://127.0.0.1:9/mcp\"},\n  \"b\": {\"url\": \"http://127.0.0.1:8/mcp\"},\n  \"c\": {\"url\": \"http://127.0.0.1:7/mcp\"},\n  \"c\": {\"url\": \"http://127.0.0.1:6/mcp\"}\n}}\n"
	user := write("user/mcp.json", bomFile, 0o644)
	ro := write("ro/.cursor/mcp.json", `{"mcpServers": {"d": {"url": "http://127.0.0.1:5/mcp"}}}`, 0o444)
	r := newRig(t, host.Cursor(), user, ro)
	res, err := Adopt(t.Context(), r.o)
	if err != nil {
		t.Fatalf("adopt: %v", err)
	}
	l := lines(res)
	for _, want := range []string{
		"a: left alone: its URL ws://127.0.0.1:9/mcp is not an http(s) URL",
		"b: now through the watchdog's proxy",
		"c: left alone: it is named twice in its file (lines 4 and 5)",
		ro + " is read-only (mode 0444)", "chmod u+w",
	} {
		if !strings.Contains(l, want) {
			t.Errorf("adopt did not say %q:\n%s", want, l)
		}
	}
	if got := read(t, ro); string(got) != `{"mcpServers": {"d": {"url": "http://127.0.0.1:5/mcp"}}}` {
		t.Errorf("the read-only file was written: %s", got)
	}
	if got := read(t, user); !bytes.HasPrefix(got, []byte("\uFEFF")) {
		t.Errorf("the BOM is gone: %q", got[:8])
	}
	agree(t, r.o)
	if _, err := Release(t.Context(), r.o); err != nil || string(read(t, user)) != bomFile {
		t.Fatalf("release: %v\n%q", err, read(t, user))
	}
}

// Measured: a 30 MB ~/.claude.json was copied on every adopt. Now a file
// is backed up only when it changed since its last backup, privately,
// and the last five are kept.
func TestBackupsOnlyWhenChangedAndPruned(t *testing.T) {
	t.Parallel()
	path, _ := fixture(t, "claude-code.json", ".claude.json")
	r := newRig(t, host.ClaudeCode(), path)
	backups := func() []string {
		got, _ := filepath.Glob(filepath.Join(r.o.StateDir, backupDir, "claude-code", "claude.json.*"))
		return got
	}
	for range 3 {
		if _, err := Adopt(t.Context(), r.o); err != nil {
			t.Fatal(err)
		}
		if _, err := Release(t.Context(), r.o); err != nil {
			t.Fatal(err)
		}
	}
	// The original, then the adopted: each cycle meets the two again.
	if got := backups(); len(got) != 2 {
		t.Fatalf("%d backups after three unchanged cycles, want 2: %v", len(got), got)
	}
	for range 8 {
		edit(t, path, `"numStartups": `, `"numStartups": 1`) // Claude Code counts its starts
		if _, err := Adopt(t.Context(), r.o); err != nil {
			t.Fatal(err)
		}
		if _, err := Release(t.Context(), r.o); err != nil {
			t.Fatal(err)
		}
		if got := backups(); len(got) > keepBackups {
			t.Fatalf("%d backups kept, want at most %d", len(got), keepBackups)
		}
	}
	for _, b := range backups() {
		if fi, err := os.Stat(b); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("backup %s: %v %v", b, fi.Mode(), err)
		}
	}
}

// A server whose entry signs in with OAuth is left alone with the reason;
// named, it is refused (exit 2 at the command line) unless --force, which
// adopts it with a warning.
func TestOAuthServerLeftAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude.json")
	body := `{"mcpServers": {"remote": {"type": "http", "url": "https://mcp.example.com/mcp", "oauth": {"clientId": "x"}},
	"keyed": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${KEY}"}},
	"probed": {"type": "http", "url": "https://probed.example.com/mcp"}}}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, host.ClaudeCode(), path)
	asked := map[string]int{}
	r.o.SignIn = func(_ context.Context, url string) SignIn {
		asked[url]++
		if strings.Contains(url, "probed") {
			return SignInOAuth
		}
		return SignInNone
	}
	res, err := Adopt(t.Context(), r.o)
	if err != nil {
		t.Fatal(err)
	}
	l := lines(res)
	for _, want := range []string{"remote: left alone: it signs in with OAuth", "probed: left alone: it signs in with OAuth", "keyed: now through the watchdog's proxy"} {
		if !strings.Contains(l, want) {
			t.Errorf("adopt did not say %q:\n%s", want, l)
		}
	}
	if asked["https://api.example.com/mcp"] != 0 {
		t.Error("a server with a static Authorization header was probed for OAuth")
	}
	r.o.Servers = []string{"remote"}
	if _, err := Adopt(t.Context(), r.o); !errors.Is(err, ErrOAuth) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("adopt --server remote: %v", err)
	}
	r.o.Force = true
	res, err = Adopt(t.Context(), r.o)
	if err != nil || !strings.Contains(lines(res), "warning: it signs in with OAuth") {
		t.Fatalf("adopt --server remote --force: %v\n%s", err, lines(res))
	}
	agree(t, r.o)
}
