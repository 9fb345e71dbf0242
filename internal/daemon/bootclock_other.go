//go:build !linux

package daemon

import "errors"

// readBootClock: no boot clock here; the restart history's ages then come
// from the wall clock alone.
func readBootClock() (bootMark, error) {
	return bootMark{}, errors.New("no boot clock on this system")
}
