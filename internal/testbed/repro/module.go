package repro

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
)

// prepareModule lays out a client package in dir (package.json,
// lib/index.js, node_modules) and patches it when o.Patched. It returns
// the path of lib/index.js. The copy keeps testdata untouched, and the
// package's "type": "module" makes Node (and `node --check`) read it as ESM.
func prepareModule(o Options, p paths, node, dir, home string) (string, error) {
	src := p.clientDir
	if o.Client == Real {
		src = p.realDir
	}
	for _, f := range []string{"package.json", filepath.Join("lib", "index.js")} {
		if err := copyFile(filepath.Join(src, f), filepath.Join(dir, f)); err != nil {
			return "", err
		}
	}
	if err := linkModules(o, p, dir); err != nil {
		return "", err
	}
	module := filepath.Join(dir, "lib", "index.js")
	if o.Derive != nil {
		if err := derive(module, o.Derive); err != nil {
			return "", err
		}
	}
	if o.Reverted {
		return module, applyAndRevert(module, home, node)
	}
	if !o.Patched {
		return module, nil
	}
	// No Force for the two clients themselves: both are known bases, which
	// this also proves. A derived build is not.
	ao := clientpatch.InstallOptions{Home: home, Node: node, Version: o.patchVersion(), Force: o.Derive != nil}
	if _, err := clientpatch.Install(module, ao); err != nil {
		return "", fmt.Errorf("repro: patch %s: %w", o.Client, err)
	}
	return module, nil
}

// linkModules gives the copy its dependencies: the stand-in links
// testdata/dshclient/node_modules whole; the real client gets a
// node_modules of links to the same packages plus the DSH-internal stubs.
func linkModules(o Options, p paths, dir string) error {
	modules := filepath.Join(p.clientDir, "node_modules")
	if o.Client == StandIn {
		return symlink(modules, filepath.Join(dir, "node_modules"))
	}
	own := filepath.Join(dir, "node_modules")
	entries, err := os.ReadDir(modules)
	if err != nil {
		return fmt.Errorf("repro: %w", err)
	}
	for _, e := range entries {
		if err := symlink(filepath.Join(modules, e.Name()), filepath.Join(own, e.Name())); err != nil {
			return err
		}
	}
	scope := path.Dir(dsh().Client.Package) // the stubs stand in for packages of the client's npm scope
	stubs := filepath.Join(p.stubsDir, filepath.FromSlash(scope))
	if entries, err = os.ReadDir(stubs); err != nil {
		return fmt.Errorf("repro: %w", err)
	}
	for _, e := range entries {
		if err := symlink(filepath.Join(stubs, e.Name()), filepath.Join(own, filepath.FromSlash(scope), e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// derive rewrites module into a derived build.
func derive(module string, f func([]byte) []byte) error {
	b, err := os.ReadFile(module)
	if err != nil {
		return fmt.Errorf("repro: %w", err)
	}
	if err := os.WriteFile(module, f(b), 0o644); err != nil {
		return fmt.Errorf("repro: %w", err)
	}
	return nil
}

func symlink(target, link string) error {
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return fmt.Errorf("repro: %w", err)
	}
	if err := os.Symlink(target, link); err != nil {
		return fmt.Errorf("repro: %w", err)
	}
	return nil
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("repro: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("repro: %w", err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		return fmt.Errorf("repro: %w", err)
	}
	return nil
}

// applyAndRevert patches module and reverts it, checking the revert gave
// back the original bytes.
func applyAndRevert(module, home, node string) error {
	orig, err := os.ReadFile(module)
	if err != nil {
		return fmt.Errorf("repro: %w", err)
	}
	o := clientpatch.InstallOptions{Home: home, Node: node}
	if _, err := clientpatch.Install(module, o); err != nil {
		return fmt.Errorf("repro: patch: %w", err)
	}
	if _, err := clientpatch.Revert(module, o); err != nil {
		return fmt.Errorf("repro: revert: %w", err)
	}
	back, err := os.ReadFile(module)
	if err != nil {
		return fmt.Errorf("repro: %w", err)
	}
	if !bytes.Equal(orig, back) {
		return fmt.Errorf("repro: revert did not restore the original bytes")
	}
	return nil
}
