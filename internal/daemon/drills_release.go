//go:build !watchdogdebug

package daemon

import "github.com/mcpwatchdog/watchdog/internal/journal"

// drills: a release build has none (drills_debug.go).
//
//lint:ignore U1000 embedded in Options, empty by design
type drills struct{}

func (Options) journalOptions() journal.Options { return journal.Options{} }

func (Options) skewFile() string { return "" }
