// Command scanbench scans log files the way `watchdog scan` does and prints
// the counts, for scripts/bench-scan.sh until the CLI exists:
//
//	scanbench FILE...
//
// Output: "candidate_lines N" (what `grep -F -c` with classify.Literals()
// counts), "findings N", and one "KIND N" line per kind.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mcpwatchdog/watchdog/monitor/classify"
)

func main() { os.Exit(run()) }

func run() int {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: scanbench FILE...")
		return 2
	}
	rep, err := classify.Scan(context.Background(), os.Args[1:], &classify.Options{MaxFindings: 1000})
	if err != nil {
		fmt.Fprintln(os.Stderr, "scanbench:", err)
		return 1
	}
	var cand int64
	findings := 0
	for _, f := range rep.Files {
		cand += f.Candidates
		findings += f.Findings
	}
	fmt.Println("candidate_lines", cand)
	fmt.Println("findings", findings)
	for _, k := range classify.Kinds() {
		fmt.Println(k, rep.Counts[k.String()])
	}
	return 0
}
