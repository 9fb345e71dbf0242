//go:build !watchdogdebug

package main

import "github.com/mcpwatchdog/watchdog/internal/daemon"

// debugHooks: the shipped binary has no drills (debug_debug.go); it reads
// no debug variable.
func debugHooks(cli, *daemon.Options, bool) {}
