//go:build !watchdogdebug

package adopt

import "github.com/mcpwatchdog/watchdog/internal/casfile"

// drill: a release build has no fault drill (drill_debug.go).
//
//lint:ignore U1000 embedded in Options, empty by design
type drill struct{}

//lint:ignore U1000 embedded in txn, empty by design
type txnDrill struct{}

func newTxn(*Options) *txn { return &txn{} }

func (*txn) injected(string) error { return nil }

func casOptions(*txn, string) *casfile.Options { return nil }
