//go:build watchdogdebug

package daemon

import "github.com/mcpwatchdog/watchdog/internal/journal"

// drills are Options' failure drills, in builds with the watchdogdebug
// tag only (tests and the chaos soak; cmd/watchdog sets them from
// wallclock.SkewEnv and JournalFaultEnv).
type drills struct {
	// ClockSkewFile names a file whose duration is added to the wall
	// clock. Zero: no skew.
	ClockSkewFile string
	// JournalFaultFile names a file whose existence makes every journal
	// write fail. Zero: no fault.
	JournalFaultFile string
}

func (o Options) journalOptions() journal.Options {
	var jo journal.Options
	jo.FaultFile = o.JournalFaultFile
	return jo
}

func (o Options) skewFile() string { return o.ClockSkewFile }
