package main

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
)

func cmdVersion(_ context.Context, c cli, args []string) int {
	var co common
	fs := newFlagSet("version", c, &co)
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if co.json {
		b, _ := json.Marshal(map[string]string{"version": version, "commit": commit, "go": runtime.Version()})
		fmt.Fprintln(c.stdout, string(b))
		return exitOK
	}
	fmt.Fprintf(c.stdout, "watchdog %s (%s%s %s/%s)\n", version, commitWords(version, commit), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return exitOK
}

// commitWords is "commit C, " unless the version says C already (a
// `git describe` version of an untagged tree is the commit).
func commitWords(version, commit string) string {
	if commit == "" || strings.Contains(version, commit) {
		return ""
	}
	return "commit " + commit + ", "
}
