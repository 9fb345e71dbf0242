package loggen

import (
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// WriteShort writes about size bytes of short log lines (about 80 bytes
// each, from a dozen templates), one in every (on average) a line the
// watchdog classifies: the shape on which the scan's lead over grep was
// smallest. It returns how many such lines it wrote; the output depends
// only on the arguments.
func WriteShort(out io.Writer, size int64, every int, seed uint64) (int, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d))
	hitLines := shortHits(host.DSH().Client.ShortName())
	t := time.Date(2025, 11, 29, 8, 0, 0, 0, time.UTC)
	return writeLines(out, size, func(b []byte) ([]byte, bool) {
		t = t.Add(time.Duration(r.IntN(20)) * time.Millisecond)
		b = t.AppendFormat(b, "2006-01-02T15:04:05.000Z")
		if r.IntN(every) == 0 {
			return append(b, hitLines[r.IntN(len(hitLines))]...), true
		}
		return shortLine(b, r), false
	})
}

// shortTemplates are everyday lines of a host and its servers; each takes
// one number. With the time in front a line is 70 to 95 bytes.
var shortTemplates = []string{
	" INFO  http GET /api/threads 200 in %dms",
	" DEBUG tools/call search_memories id=%d ok",
	" INFO  agent step %d model=deepseek-chat tokens=512",
	" DEBUG hyper::proto::h1 flushed %d bytes to the client",
	" INFO  memory search query=\"project notes\" results=%d",
	" WARN  slow request took %dms on /api/chat (budget 200ms)",
	" DEBUG cache hit ratio 0.91 after %d lookups, evicted 3",
	" INFO  embedding batch of %d chunks finished in 0.42s",
	" DEBUG rmcp served request method=\"tools/list\" id=%d",
	" INFO  chat saved: %d messages, attachments 0, draft off",
	" TRACE scheduler tick %d: 4 jobs ready, 0 waiting, 2 idle",
	" INFO  settings reloaded from disk (%d keys, 0 changed)",
}

// shortHits are lines the classifier matches, as short as the rest; client
// is the name the host tags its MCP client's lines with.
func shortHits(client string) []string {
	return []string{
		" WARN  rmcp: session not found session_id=9f3e2a7c",
		" ERROR mcp: Error POSTing to endpoint: Session not found",
		" INFO  [" + client + "] Reconnected to MCP server mem",
		" WARN  mcp: Failed to open SSE stream: Not Found",
	}
}

func shortLine(b []byte, r *rand.Rand) []byte {
	tpl := shortTemplates[r.IntN(len(shortTemplates))]
	i := indexVerb(tpl)
	b = append(b, tpl[:i]...)
	b = strconv.AppendInt(b, int64(r.IntN(100000)), 10)
	return append(b, tpl[i+2:]...)
}

// indexVerb is where a template's one %d is.
func indexVerb(tpl string) int {
	for i := 0; i+1 < len(tpl); i++ {
		if tpl[i] == '%' && tpl[i+1] == 'd' {
			return i
		}
	}
	panic("loggen: template without %d: " + tpl)
}
