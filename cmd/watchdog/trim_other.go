//go:build !linux

package main

// trimBinaryPages: only Linux's mappings are read (trim_linux.go).
func trimBinaryPages() error { return nil }
