//go:build linux

package memtrim

import (
	"debug/elf"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// selfTrimmable is trimmable for this process's own binary: its verdict
// holds for the process's life, so a loop asks once.
func selfTrimmable() (bool, error) { return trimmable("/proc/self/exe") }

// dropBinaryPages drops this process's page-table entries for the
// binary's read-only mappings (code and read-only data). Nearly all of a
// 17 MB binary is mapped by the time main runs (package init, and the
// kernel maps the neighbours of every page touched), most of it never
// touched again by a daemon at rest; the pages stay in the page cache, and
// those the daemon touches again come back on a minor fault. Only a
// binary without load-time relocations (ET_EXEC, as go build makes on
// Linux by default): a position-independent one has relocated pages
// behind its read-only mappings, which dropping would lose.
// The caller has checked the binary is trimmable (selfTrimmable).
func dropBinaryPages() error {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return err
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return err
	}
	for line := range strings.SplitSeq(string(maps), "\n") {
		f := strings.Fields(line)
		// The path is the rest of the line from its first slash: it may
		// hold spaces. A binary replaced on disk reads "... (deleted)" in
		// both, and is trimmed all the same: its mapping is the old file's.
		slash := strings.IndexByte(line, '/')
		if len(f) < 6 || slash < 0 || line[slash:] != exe || f[1][1] == 'w' {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil {
			return fmt.Errorf("cannot read the mapping %q", f[0])
		}
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED); errno != 0 {
			return fmt.Errorf("madvise %s: %w", f[0], errno)
		}
	}
	return nil
}

// trimmable reports whether the binary at path has nothing but its file's
// bytes behind its read-only mappings, so that dropping them loses
// nothing: loaded at a fixed address (ET_EXEC: a position-independent
// binary is relocated at load), and no RELRO segment (data an external
// linker's binary has relocated at load and then made read-only, such as
// its GOT). Go's own linker makes such a binary, cgo or not.
func trimmable(path string) (bool, error) {
	f, err := elf.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	return trimmableELF(f), nil
}

func trimmableELF(f *elf.File) bool {
	if f.Type != elf.ET_EXEC {
		return false
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_GNU_RELRO {
			return false
		}
	}
	return true
}
