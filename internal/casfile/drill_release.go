//go:build !watchdogdebug

package casfile

// drill: a release build has no fault drill (drill_debug.go).
//
//lint:ignore U1000 embedded in Options, empty by design
type drill struct{}

func (*Options) fault(string) error { return nil }
