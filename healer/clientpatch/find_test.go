package clientpatch

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// place creates a client module under dir at rel and returns its path.
func place(t *testing.T, dir, rel string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	mustDo(t, os.MkdirAll(filepath.Dir(p), 0o755))
	mustDo(t, os.WriteFile(p, []byte("// client\n"), 0o644))
	return p
}

func TestFind(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	npmRoot := filepath.Join(root, "npm", "lib", "node_modules")
	sys := filepath.Join(root, "usr", "lib", "node_modules")
	brew := filepath.Join(root, "opt", "homebrew", "lib", "node_modules")

	viaNpm := place(t, npmRoot, hoisted)
	viaSys := place(t, sys, nested)
	place(t, brew, "@deepseek-ai/other/lib/index.js") // not the client
	npmGlobal := place(t, home, ".npm-global/lib/node_modules/"+nested)
	nvmOld := place(t, home, ".nvm/versions/node/v20.11.1/lib/node_modules/"+hoisted)
	nvmNew := place(t, home, ".nvm/versions/node/v22.3.0/lib/node_modules/"+nested)
	volta := place(t, home, ".volta/tools/image/packages/@deepseek-ai/dsh/lib/node_modules/"+nested)
	pnpm := place(t, home, ".local/share/pnpm/global/5/node_modules/"+hoisted)
	pnpmMac := place(t, home, "Library/pnpm/global/5/node_modules/"+nested)
	prefix := place(t, root, "prefix/lib/node_modules/"+hoisted)
	// The same install reached twice (a symlinked prefix) is listed once.
	mustDo(t, os.Symlink(npmRoot, filepath.Join(root, "npm-link")))

	env := map[string]string{"NPM_CONFIG_PREFIX": filepath.Join(root, "prefix")}
	base := FindOptions{
		Home:       home,
		Getenv:     func(k string) string { return env[k] },
		NpmRoot:    func() (string, error) { return npmRoot, nil },
		SystemDirs: []string{brew, filepath.Join(root, "npm-link"), sys},
	}
	got, err := Find(base)
	mustDo(t, err)
	want := []string{viaNpm, prefix, viaSys, npmGlobal, nvmNew, nvmOld, volta, pnpm, pnpmMac}
	if !slices.Equal(got, want) {
		t.Fatalf("found\n%q\nwant\n%q", got, want)
	}

	t.Run("npm missing", func(t *testing.T) {
		o := base
		o.NpmRoot = func() (string, error) { return "", errors.New("npm: not found") }
		got, err := Find(o)
		mustDo(t, err)
		if got[0] != prefix || slices.Contains(got, viaNpm) {
			t.Fatalf("%q", got)
		}
	})
	t.Run("flag wins over config and discovery", func(t *testing.T) {
		o := base
		o.Module, o.ConfigModule = filepath.Dir(filepath.Dir(volta)), nvmOld // the package folder
		if got, err := Find(o); err != nil || !slices.Equal(got, []string{volta}) {
			t.Fatalf("%q, %v", got, err)
		}
		o.Module = ""
		if got, err := Find(o); err != nil || !slices.Equal(got, []string{nvmOld}) {
			t.Fatalf("config: %q, %v", got, err)
		}
	})
	findNotFound(t, base, root)
}

// findNotFound: the cases of TestFind where Find finds nothing.
func findNotFound(t *testing.T, base FindOptions, root string) {
	t.Run("a chosen path that is missing is an error", func(t *testing.T) {
		o := base
		o.Module = filepath.Join(root, "nope", "index.js")
		if _, err := Find(o); !errors.Is(err, ErrNotFound) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("nothing installed", func(t *testing.T) {
		empty := t.TempDir()
		o := FindOptions{Home: empty, Getenv: func(string) string { return "" }, NpmRoot: func() (string, error) { return empty, nil }, SystemDirs: []string{}}
		if _, err := Find(o); !errors.Is(err, ErrNotFound) {
			t.Fatalf("err %v", err)
		}
	})
}

// TestFindRealNpm: with no NpmRoot given, Find asks the real npm, which
// must not fail or hang (npm is on PATH where the tests run).
func TestFindRealNpm(t *testing.T) {
	t.Parallel()
	root, err := NpmRoot()()
	if err != nil || !filepath.IsAbs(root) {
		t.Fatalf("npm root -g: %q, %v", root, err)
	}
}
