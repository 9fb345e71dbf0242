//go:build !linux

package restart

import "errors"

// ReadBootClock: no boot clock here; the restart history's ages then come
// from the wall clock alone.
func ReadBootClock() (BootMark, error) {
	return BootMark{}, errors.New("no boot clock on this system")
}
