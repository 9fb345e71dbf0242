package hosts

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// MustDSH is the installed real DSH host; a missing install fails the
// test with the command that installs it.
func MustDSH(t *testing.T) DSHInstall {
	t.Helper()
	return mustFind(t, FindDSH)
}

// PrivateDSH is a copy of the install the test may change (the client
// patch), laid out as `npm install -g` lays a global prefix out:
// PREFIX/lib/node_modules, and PREFIX/bin/dsh-<random> linking to the
// host's entry (its process then runs as `node PREFIX/bin/dsh-<random>`,
// as a real one runs as `node PREFIX/bin/dsh`; the random part keeps a
// test's watchdog from taking another test's host for its own). Hoisted,
// every package sits in PREFIX/lib/node_modules; nested, as npm lays out
// a global install of one package, only the host's own package does, and
// everything it needs (the MCP client too) is in its node_modules.
// The copy is hard links, so it costs no disk and a moment; the patch
// writes a new file and renames it over its link, never into the shared
// install.
func PrivateDSH(t *testing.T, in DSHInstall, nested bool) (DSHInstall, string) {
	t.Helper()
	prefix := t.TempDir()
	mods := filepath.Join(prefix, "lib", "node_modules")
	bin := filepath.Join(prefix, "bin")
	for _, dir := range []string{filepath.Dir(mods), bin} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(in.Dir, "node_modules")
	place := copyHoisted
	if nested {
		place = copyNested
	}
	at := place(t, src, mods)
	rel := func(p string) string {
		r, err := filepath.Rel(src, p)
		if err != nil {
			t.Fatal(err)
		}
		return at(r)
	}
	priv := DSHInstall{Name: in.Name, Dir: prefix, Recipe: in.Recipe, Node: rel(in.Node), Bin: rel(in.Bin), Version: in.Version}
	var token [4]byte
	if _, err := rand.Read(token[:]); err != nil {
		t.Fatal(err)
	}
	priv.Command = filepath.Join(bin, host.DSH().Process+"-"+hex.EncodeToString(token[:]))
	target, err := filepath.Rel(bin, priv.Bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, priv.Command); err != nil {
		t.Fatal(err)
	}
	return priv, prefix
}

// copyHoisted hard-links the install's node_modules src as mods, and says
// where a path inside src (relative to it) lands.
func copyHoisted(t *testing.T, src, mods string) func(string) string {
	t.Helper()
	cpal(t, mods, src)
	return func(r string) string { return filepath.Join(mods, r) }
}

// copyNested hard-links the host's own package into mods and every other
// package of src into that package's node_modules, and says where a path
// inside src (relative to it) lands.
func copyNested(t *testing.T, src, mods string) func(string) string {
	t.Helper()
	own := filepath.FromSlash(host.DSH().Client.HostPackage)
	nest := filepath.Join(mods, own, "node_modules")
	if err := os.MkdirAll(filepath.Join(mods, filepath.Dir(own)), 0o700); err != nil {
		t.Fatal(err)
	}
	cpal(t, filepath.Join(mods, own), filepath.Join(src, own)) // before its node_modules: cp -al into a folder nests
	if err := os.MkdirAll(filepath.Join(nest, filepath.Dir(own)), 0o700); err != nil {
		t.Fatal(err)
	}
	tops, _ := filepath.Glob(filepath.Join(src, "*"))
	scoped, _ := filepath.Glob(filepath.Join(src, filepath.Dir(own), "*"))
	for _, p := range append(tops, scoped...) {
		r, _ := filepath.Rel(src, p)
		if r != filepath.Dir(own) && r != own {
			cpal(t, filepath.Join(nest, r), p)
		}
	}
	return func(r string) string {
		if r == own || strings.HasPrefix(r, own+string(filepath.Separator)) {
			return filepath.Join(mods, r)
		}
		return filepath.Join(nest, r)
	}
}

// cpal hard-links the tree at src as dst. A src that is a symbolic link
// (an install shared with another checkout) is followed: copying the link
// itself would have the test patch the shared install. (A patch replaces
// the file by rename, so hard links leave the original alone.)
func cpal(t *testing.T, dst, src string) {
	t.Helper()
	if real, err := filepath.EvalSymlinks(src); err == nil {
		src = real
	}
	if out, err := exec.Command("cp", "-al", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("copy the install (cp -al %s %s): %v\n%s", src, dst, err, out)
	}
}

// StartDSH starts the host on the install with its one server at url
// ("": the profile already written is kept).
func (r *Rig) StartDSH(in DSHInstall, url string) {
	r.t.Helper()
	d, err := StartDSH(in, HostOptions{Home: r.Home, Workdir: r.t.TempDir(), ServerURL: url, Stdio: r.Stdio.argv(), KeepConfig: url == "",
		ModelURL: r.Model.URL(), Task: "Call the echo tool when asked."})
	if err != nil {
		r.t.Fatal(err)
	}
	r.Host = d
	r.dshTools()
	r.t.Cleanup(func() {
		d.Stop()
		if r.t.Failed() {
			r.t.Logf("%s's output:\n%s", in.Name, d.Output())
		}
	})
}

// dshTools names the server's echo tool as DSH offers it, and how DSH
// hands back its result: the echoed text.
func (r *Rig) dshTools() {
	r.tool = DSHTool("echo")
	r.echoed = func(content, text string) bool { return content == text }
}

// WebCall chats with the rig's host, a `dsh web`, through its own API as
// its browser would: once it announced it is ready, a new conversation in
// cwd and the user's message; then the model calls the echo tool with
// text (Call) and ends the turn. It returns the conversation's session
// id, what the host handed back, and whether that is the echo.
func (r *Rig) WebCall(cwd, text string) (string, ToolResult, bool) {
	r.t.Helper()
	r.dshTools()
	url := r.webReady()
	ctx, cancel := context.WithTimeout(context.Background(), callWithin)
	defer cancel()
	web := NewDSHWeb(url)
	session, err := web.CreateSession(ctx, cwd)
	if err != nil {
		r.hostFailed(err)
	}
	if err := web.Prompt(ctx, session, "Call the echo tool when asked."); err != nil {
		r.hostFailed(err)
	}
	res, ok := r.Call(text)
	r.EndTurn()
	return session, res, ok
}

// webReady waits for the host to announce it is ready and returns the URL
// it serves at. The announcement is a line of its output, which has no
// event of its own: a bounded wait that looks every 50 ms.
func (r *Rig) webReady() string {
	r.t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	timeout := time.NewTimer(bootWithin)
	defer timeout.Stop()
	for {
		if url, ok := DSHWebURL(r.output()); ok {
			return url
		}
		select {
		case <-tick.C:
		case <-r.exited():
			r.hostFailed(fmt.Errorf("%w before it announced it was ready", ErrHostExited))
		case <-timeout.C:
			r.hostFailed(fmt.Errorf("dsh web did not announce it was ready (%q) within %v", dshWebReady, bootWithin))
		}
	}
}
