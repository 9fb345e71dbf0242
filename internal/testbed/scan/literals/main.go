// Command literals prints the scan's prefilter literals, one per line, so
// benchmarks can give `grep -F` exactly the same set.
package main

import (
	"fmt"

	"github.com/mcpwatchdog/watchdog/monitor/classify"
)

func main() {
	for _, l := range classify.Literals() {
		fmt.Println(l)
	}
}
