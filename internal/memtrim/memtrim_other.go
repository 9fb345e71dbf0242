//go:build !linux

package memtrim

// Only Linux's mappings are read (memtrim_linux.go): here nothing is trimmed.

func selfTrimmable() (bool, error) { return false, nil }

func dropBinaryPages() error { return nil }
