package journal

import (
	"fmt"
	"slices"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

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
