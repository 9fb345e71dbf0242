//go:build !watchdogdebug

package journal

// injected: a release build has no fault drill (fault_debug.go), and
// Options.FaultFile is ignored.
func (*Journal) injected() error { return nil }
