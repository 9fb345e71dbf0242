package main

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/opener"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
	"github.com/mcpwatchdog/watchdog/internal/timeline"
)

func cmdTimeline(_ context.Context, c cli, args []string) int {
	var co common
	fs := newFlagSet("timeline", c, &co)
	since := fs.Duration("since", 0, "how far back from now the page goes (default: the journal's own first to last event, 1m to 7 days)")
	out := fs.String("out", "", "where to write the page (default STATE_DIR/"+timeline.FileName+")")
	open := fs.Bool("open", false, "open the page in the default browser")
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if given(fs, "since") && *since <= 0 {
		fmt.Fprintf(c.stderr, "watchdog timeline: --since %s: give a positive duration such as 24h or 168h\n", *since)
		return exitUsage
	}
	_, stateDir, code := loadConfig(c, co)
	if code != exitOK {
		return code
	}
	path, err := timeline.WriteFile(timeline.WriteOptions{StateDir: stateDir, Out: *out, Since: *since,
		Now: time.Now(), Location: time.Local})
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog timeline: %s\n", textsafe.Escape(err.Error()))
		fmt.Fprintln(c.stderr, "watchdog timeline: pass the --state-dir the daemon uses (see `watchdog doctor`)")
		return exitFailed
	}
	fmt.Fprintln(c.stdout, path)
	if *open {
		if err := opener.Open(path); err != nil {
			fmt.Fprintf(c.stderr, "watchdog timeline: %s\n", textsafe.Escape(err.Error()))
			return exitFailed
		}
	}
	return exitOK
}
