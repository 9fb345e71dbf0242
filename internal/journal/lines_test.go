package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// details reads every journal file of dir (rotated ones first, oldest
// first) and returns the events' details in file order.
func details(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, FileName+".*"))
	slices.Sort(files)
	slices.Reverse(files)
	var out []string
	for _, p := range append(files, filepath.Join(dir, FileName)) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range splitLines(b) {
			rec, err := Decode(line)
			if err != nil {
				t.Fatalf("%s: %q: %v", p, line, err)
			}
			out = append(out, rec.Detail)
		}
	}
	return out
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := slices.Index(b, '\n')
		if i < 0 {
			return append(out, b)
		}
		out, b = append(out, b[:i]), b[i+1:]
	}
	return out
}

func event(i int) health.Event {
	return health.Event{Time: t0.Add(time.Duration(i) * time.Second), Kind: "test", Detail: fmt.Sprint(i)}
}
