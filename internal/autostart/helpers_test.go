package autostart

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeExe is a real executable file in a directory whose name needs
// quoting in every format (space, $, %, quote, backslash), so the
// templates' escaping is exercised by every test that uses it.
func fakeExe(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), `My Apps $HOME 100% "q" b\s`)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "watchdog")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// exeFor is fakeExe, or for systemd (which refuses quotes and backslashes
// in an executable path) one under a directory with a space, $ and %.
func exeFor(t *testing.T, k Kind) string {
	t.Helper()
	if k != Systemd {
		return fakeExe(t)
	}
	dir := filepath.Join(t.TempDir(), "My Apps $HOME 100%")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "watchdog")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// plainExe is an executable whose path needs no quoting anywhere.
func plainExe(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "watchdog")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// noEnv is a Getenv with nothing set.
func noEnv(string) string { return "" }
