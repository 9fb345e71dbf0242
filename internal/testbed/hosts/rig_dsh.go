package hosts

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

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
// test's watchdog from taking another test's host for its own).
// The copy is hard links, so it costs no disk and a moment; the patch
// writes a new file and renames it over its link, never into the shared
// install.
func PrivateDSH(t *testing.T, in DSHInstall) (DSHInstall, string) {
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
	if out, err := exec.Command("cp", "-al", src, mods).CombinedOutput(); err != nil {
		t.Fatalf("copy the %s install (cp -al %s %s): %v\n%s", in.Name, src, mods, err, out)
	}
	rel := func(p string) string {
		r, err := filepath.Rel(src, p)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Join(mods, r)
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

// StartDSH starts the host on the install with its one server at url
// ("": the profile already written is kept).
func (r *Rig) StartDSH(in DSHInstall, url string) {
	r.t.Helper()
	d, err := StartDSH(in, HostOptions{Home: r.Home, Workdir: r.t.TempDir(), ServerURL: url, KeepConfig: url == "",
		ModelURL: r.Model.URL(), Task: "Call the echo tool when asked."})
	if err != nil {
		r.t.Fatal(err)
	}
	r.Host, r.tool = d, DSHTool("echo")
	r.echoed = func(content, text string) bool { return content == text }
	r.t.Cleanup(func() {
		d.Stop()
		if r.t.Failed() {
			r.t.Logf("%s's output:\n%s", in.Name, d.Output())
		}
	})
}
