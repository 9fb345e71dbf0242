package main

import (
	"context"
	"fmt"

	"github.com/mcpwatchdog/watchdog/internal/textsafe"
	"github.com/mcpwatchdog/watchdog/monitor/classify"
)

// cmdScan classifies existing logs: "when did my sessions die last week".
// A file that cannot be read is named and the others are still scanned;
// the exit code is then 1.
func cmdScan(ctx context.Context, c cli, args []string) int {
	var co common
	fs := newFlagSet("scan", c, &co)
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return usageErr(err)
	}
	if len(files) == 0 {
		fmt.Fprintln(c.stderr, "watchdog scan: name at least one log FILE")
		return exitUsage
	}
	rep, scanErr := classify.Scan(ctx, files, nil)
	if co.json {
		if err := writeJSON(c.stdout, rep); err != nil {
			fmt.Fprintf(c.stderr, "watchdog scan: %v\n", err)
			return exitFailed
		}
	} else if err := rep.WriteText(c.stdout); err != nil {
		fmt.Fprintf(c.stderr, "watchdog scan: %v\n", err)
		return exitFailed
	}
	if scanErr != nil {
		fmt.Fprintf(c.stderr, "watchdog scan: %s\n", textsafe.Escape(scanErr.Error())) // file names as given
		return exitFailed
	}
	return exitOK
}
