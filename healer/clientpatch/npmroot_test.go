package clientpatch

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestNpmRootAskedOnce: the daemon looks for the client module every
// minute while none is installed; npm root -g (node's start, a third of a
// second of a core) runs again only when npm or the user's npmrc changed,
// and after a failure.
func TestNpmRootAskedOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	npm, npmrc := filepath.Join(dir, "npm"), filepath.Join(dir, ".npmrc")
	mustDo(t, os.WriteFile(npm, []byte("#!/bin/sh\n"), 0o755))
	runs, fail := 0, false
	n := newNpmRoots(func(string) (string, error) { return npm, nil }, func() string { return npmrc },
		func(got string) (string, error) {
			if got != npm {
				t.Errorf("ran %q, want %q", got, npm)
			}
			runs++
			if fail {
				return "", errors.New("npm: timed out")
			}
			return "/prefix/lib/node_modules", nil
		})
	ask := func(wantRuns int, why string) {
		t.Helper()
		root, err := n.get()
		if !fail && (err != nil || root != "/prefix/lib/node_modules") {
			t.Fatalf("%s: %q, %v", why, root, err)
		}
		if runs != wantRuns {
			t.Fatalf("%s: npm ran %d times, want %d", why, runs, wantRuns)
		}
	}
	ask(1, "first look")
	ask(1, "nothing changed")
	ask(1, "nothing changed, again")
	mustDo(t, os.WriteFile(npmrc, []byte("prefix=/elsewhere\n"), 0o600))
	ask(2, "an npmrc appeared")
	ask(2, "the npmrc as it was")
	later := time.Now().Add(time.Minute)
	mustDo(t, os.Chtimes(npmrc, later, later))
	ask(3, "the npmrc changed")
	other := filepath.Join(dir, "npm.new")
	mustDo(t, os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755))
	mustDo(t, os.Rename(other, npm))
	ask(4, "npm replaced")
	fail = true
	mustDo(t, os.Remove(npmrc))
	ask(5, "the npmrc removed; npm fails")
	ask(6, "a failure is not remembered")
	fail = false
	ask(7, "npm answers again")
	ask(7, "and is remembered")
}

// TestNpmRootNoNpm: without npm on PATH nothing runs.
func TestNpmRootNoNpm(t *testing.T) {
	t.Parallel()
	n := newNpmRoots(func(string) (string, error) { return "", errors.New("not found") }, func() string { return "" },
		func(string) (string, error) { t.Fatal("ran npm without one on PATH"); return "", nil })
	if _, err := n.get(); err == nil {
		t.Fatal("no error without npm")
	}
}
