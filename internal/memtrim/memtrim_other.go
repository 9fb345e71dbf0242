//go:build !linux

package memtrim

// BinaryPages does nothing here: only Linux's mappings are read (memtrim_linux.go).
func BinaryPages() error { return nil }
