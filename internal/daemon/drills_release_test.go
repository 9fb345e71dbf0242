//go:build !watchdogdebug

package daemon_test

import "github.com/mcpwatchdog/watchdog/internal/daemon"

// journalDrill: a release build has no drill to set.
func journalDrill(*daemon.Options, string) {}
