//go:build linux

package memtrim

import (
	"debug/elf"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Trimming drops the resident pages of this (test) binary's read-only
// mappings, and the code keeps running on them.
func TestTrimBinaryPages(t *testing.T) {
	if ok, err := selfTrimmable(); err != nil || !ok {
		t.Fatalf("the test binary: trimmable %v, err %v; want a non-PIE binary without RELRO to trim", ok, err)
	}
	before := rssFileKB(t)
	if err := dropBinaryPages(); err != nil {
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

// TestTrimmable: only a fixed-address binary without RELRO is trimmed; a
// file that is no ELF is an error, and nothing is trimmed.
func TestTrimmable(t *testing.T) {
	t.Parallel()
	prog := func(pt elf.ProgType) *elf.Prog { return &elf.Prog{ProgHeader: elf.ProgHeader{Type: pt}} }
	for _, tc := range []struct {
		name string
		f    *elf.File
		want bool
	}{
		{"ET_EXEC", &elf.File{FileHeader: elf.FileHeader{Type: elf.ET_EXEC}, Progs: []*elf.Prog{prog(elf.PT_LOAD), prog(elf.PT_INTERP)}}, true},
		{"ET_DYN (PIE)", &elf.File{FileHeader: elf.FileHeader{Type: elf.ET_DYN}, Progs: []*elf.Prog{prog(elf.PT_LOAD)}}, false},
		{"ET_EXEC with RELRO", &elf.File{FileHeader: elf.FileHeader{Type: elf.ET_EXEC}, Progs: []*elf.Prog{prog(elf.PT_LOAD), prog(elf.PT_GNU_RELRO)}}, false},
	} {
		if got := trimmableELF(tc.f); got != tc.want {
			t.Errorf("%s: trimmable %v, want %v", tc.name, got, tc.want)
		}
	}
	path := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho this is a script of some length\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, err := trimmable(path); err == nil || ok {
		t.Errorf("a script: trimmable %v, %v; want an error", ok, err)
	}
}
