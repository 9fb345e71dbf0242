// Command genlog writes a large, realistic MCP host/server log with sparse
// watchdog-relevant lines, for benchmarking `watchdog scan` against grep.
//
//	go run ./internal/testbed/scan/genlog -size-mb 1024 -out big.log
//
// The output is deterministic for a given -seed, so repeated runs compare
// like with like.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcpwatchdog/watchdog/internal/testbed/scan/loggen"
)

func main() {
	os.Exit(run())
}

func run() int {
	sizeMB := flag.Int("size-mb", 1024, "output size in MiB")
	out := flag.String("out", "", "output file (required)")
	every := flag.Int("hit-every", 40000, "on average one watchdog-relevant line per this many lines")
	seed := flag.Uint64("seed", 1, "random seed")
	shape := flag.String("shape", "long", "long: the realistic mix of host and server lines; short: ~80-byte lines from a dozen templates")
	flag.Parse()
	write := map[string]func(io.Writer, int64, int, uint64) (int, error){"long": loggen.Write, "short": loggen.WriteShort}[*shape]
	if *out == "" || *sizeMB <= 0 || *every <= 0 || write == nil {
		fmt.Fprintln(os.Stderr, "usage: genlog -out FILE [-size-mb N] [-hit-every N] [-seed N] [-shape long|short]")
		return 2
	}
	hits, err := generate(*out, int64(*sizeMB)<<20, *every, *seed, write)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genlog:", err)
		return 1
	}
	fmt.Printf("wrote %s: %d MiB, %d watchdog lines\n", *out, *sizeMB, hits)
	return 0
}

func generate(path string, size int64, every int, seed uint64, write func(io.Writer, int64, int, uint64) (int, error)) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("create: %w", err)
	}
	hits, err := write(f, size, every, seed)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close: %w", cerr)
	}
	return hits, err
}
