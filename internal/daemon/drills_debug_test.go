//go:build watchdogdebug

package daemon_test

import "github.com/mcpwatchdog/watchdog/internal/daemon"

// journalDrill sets the journal's fault drill (a debug build has one).
func journalDrill(o *daemon.Options, file string) { o.JournalFaultFile = file }
