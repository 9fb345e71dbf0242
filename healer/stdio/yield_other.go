//go:build !linux

package stdio

// yield: no portable way to give the CPU away; the spin is short.
func yield() {}
