//go:build !watchdogdebug

package journal

// drill: a release build has no fault drill (fault_debug.go).
//
//lint:ignore U1000 embedded in Options, empty by design
type drill struct{}

func (*Journal) injected() error { return nil }
