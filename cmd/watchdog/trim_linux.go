//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// trimBinaryPages drops this process's page-table entries for the
// binary's read-only mappings (code and read-only data). Nearly all of a
// 17 MB binary is mapped by the time main runs (package init, and the
// kernel maps the neighbours of every page touched), most of it never
// touched again by a daemon at rest; the pages stay in the page cache, and
// those the daemon touches again come back on a minor fault. Only a
// binary without load-time relocations (ET_EXEC, as go build makes on
// Linux by default): a position-independent one has relocated pages
// behind its read-only mappings, which dropping would lose.
func trimBinaryPages() error {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return err
	}
	if pie, err := isPIE("/proc/self/exe"); err != nil || pie {
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

// isPIE reports whether the ELF file at path is position-independent
// (ET_DYN) rather than loaded at a fixed address (ET_EXEC).
func isPIE(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var h [18]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return false, err
	}
	if !bytes.HasPrefix(h[:], []byte("\x7fELF")) || h[5] != 1 { // little-endian only
		return true, nil // unknown: treat as relocated, leave it alone
	}
	const etExec = 2
	return h[16] != etExec || h[17] != 0, nil
}
