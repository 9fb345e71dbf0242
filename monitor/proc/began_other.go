//go:build !linux

package proc

import "time"

// Began is when h's process started: Started, which on these platforms is
// already as precise as the process table says.
func Began(h Host) time.Time { return h.Started }
