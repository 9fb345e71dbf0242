//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Trimming drops the resident pages of this (test) binary's read-only
// mappings, and the code keeps running on them.
func TestTrimBinaryPages(t *testing.T) {
	if pie, err := isPIE("/proc/self/exe"); err != nil || pie {
		t.Fatalf("the test binary: pie %v, err %v; want a non-PIE binary to trim", pie, err)
	}
	before := rssFileKB(t)
	if err := trimBinaryPages(); err != nil {
		t.Fatal(err)
	}
	after := rssFileKB(t)
	if after >= before {
		t.Errorf("RssFile %d kB after the trim, %d kB before: nothing was let go", after, before)
	}
	if got := strings.Repeat("ok", 2); got != "okok" { // code and rodata fault back in
		t.Fatal(got)
	}
}

func rssFileKB(t *testing.T) int {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.Fields(v)[0])
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

func TestIsPIE(t *testing.T) {
	elf := func(typ byte) []byte {
		h := make([]byte, 64)
		copy(h, "\x7fELF\x02\x01\x01")
		h[16] = typ
		return h
	}
	for _, tc := range []struct {
		name string
		head []byte
		pie  bool
	}{
		{"ET_EXEC", elf(2), false},
		{"ET_DYN", elf(3), true},
		{"not ELF", []byte("#!/bin/sh\necho this is a script of some length\n"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bin")
			if err := os.WriteFile(path, tc.head, 0o600); err != nil {
				t.Fatal(err)
			}
			pie, err := isPIE(path)
			if err != nil || pie != tc.pie {
				t.Errorf("isPIE = %v, %v; want %v", pie, err, tc.pie)
			}
		})
	}
}
