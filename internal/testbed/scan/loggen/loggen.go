// Package loggen writes realistic MCP host and server logs with sparse
// watchdog-relevant lines, for benchmarks of the classify scan.
package loggen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// Write writes about size bytes of log lines to out (whole lines, so it may
// overshoot by one line); on average one line in every is one the watchdog
// classifies. It returns how many such lines it wrote. The output depends
// only on the arguments.
func Write(out io.Writer, size int64, every int, seed uint64) (int, error) {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		t: time.Date(2025, 11, 29, 8, 0, 0, 0, time.UTC), client: host.DSH().Client.ShortName()}
	return writeLines(out, size, func(b []byte) ([]byte, bool) {
		g.t = g.t.Add(time.Duration(g.r.IntN(40)) * time.Millisecond)
		if g.r.IntN(every) == 0 {
			return g.hit(b), true
		}
		return g.ordinary(b), false
	})
}

// writeLines writes the lines next makes until about size bytes are out
// (whole lines, so it may overshoot by one); next appends one line, without
// its newline, to b and says whether it is a hit. It returns the hits.
func writeLines(out io.Writer, size int64, next func(b []byte) ([]byte, bool)) (int, error) {
	w := bufio.NewWriterSize(out, 1<<20)
	var written int64
	hits := 0
	var line []byte
	for written < size {
		var hit bool
		line, hit = next(line[:0])
		if hit {
			hits++
		}
		line = append(line, '\n')
		n, err := w.Write(line)
		if err != nil {
			return hits, fmt.Errorf("write: %w", err)
		}
		written += int64(n)
	}
	if err := w.Flush(); err != nil {
		return hits, fmt.Errorf("flush: %w", err)
	}
	return hits, nil
}

type gen struct {
	r      *rand.Rand
	t      time.Time
	client string // the name DSH tags its MCP client's lines with
}

// tagged appends " <level> [<client>] ", how DSH starts a line of its MCP
// client.
func (g *gen) tagged(b []byte, level string) []byte {
	b = append(b, ' ')
	b = append(b, level...)
	b = append(b, " ["...)
	b = append(b, g.client...)
	return append(b, "] "...)
}

// Immutable word lists the lines are made from.
var (
	tools   = []string{"search_memories", "add_memory", "list_threads", "get_thread", "update_memory", "read_working_memory"}
	paths   = []string{"/api/chat", "/api/threads", "/api/models", "/assets/app.js", "/api/settings", "/healthz"}
	queries = []string{"project notes", "meeting with anna", "rust async cancellation", "quarterly plan", "deploy checklist", "reading list"}
	levels  = []string{"INFO", "DEBUG", "INFO", "INFO", "WARN", "TRACE"}
)

func (g *gen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g *gen) sid(b []byte) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < 32; i++ {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			b = append(b, '-')
		}
		b = append(b, hex[g.r.IntN(16)])
	}
	return b
}

// ordinary appends one of several everyday line shapes from the DSH host,
// the Nowledge Mem (rmcp, tracing) server and a JSON-logging server.
// Long: a switch with one case for each of the 10 line shapes.
func (g *gen) ordinary(b []byte) []byte {
	switch g.r.IntN(10) {
	case 8:
		b = g.t.AppendFormat(b, "2006-01-02T15:04:05.000000Z07:00")
		b = append(b, " DEBUG rmcp::transport::streamable_http_server::session::local: session event sent session_id="...)
		return g.sid(b)
	case 9:
		b = g.t.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
		b = append(b, " info [dsh-web] chat session "...)
		b = strconv.AppendInt(b, int64(g.r.IntN(10000)), 10)
		return append(b, " saved (12 messages), sessions open: 3"...)
	case 0:
		b = g.t.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
		b = append(b, " info [dsh-web] GET "...)
		b = append(b, g.pick(paths)...)
		b = append(b, " 200 "...)
		b = strconv.AppendInt(b, int64(g.r.IntN(300)), 10)
		return append(b, "ms"...)
	case 1:
		b = g.t.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
		b = append(g.tagged(b, "debug"), "nowledge-mem: tools/call "...)
		b = append(b, g.pick(tools)...)
		b = append(b, " id="...)
		b = strconv.AppendInt(b, int64(g.r.IntN(100000)), 10)
		b = append(b, " took "...)
		b = strconv.AppendInt(b, int64(g.r.IntN(2000)), 10)
		return append(b, "ms"...)
	case 2:
		b = g.t.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
		b = append(b, " info [agent] step "...)
		b = strconv.AppendInt(b, int64(g.r.IntN(40)), 10)
		b = append(b, " model=deepseek-chat prompt_tokens="...)
		b = strconv.AppendInt(b, int64(g.r.IntN(9000)), 10)
		return append(b, " completion_tokens=512 finish_reason=stop streaming=true"...)
	case 3:
		b = g.t.AppendFormat(b, "2006-01-02T15:04:05.000000Z07:00")
		b = append(b, "  "...)
		b = append(b, g.pick(levels)...)
		b = append(b, " rmcp::service: served request method=\"tools/call\" id="...)
		return strconv.AppendInt(b, int64(g.r.IntN(100000)), 10)
	case 4:
		b = g.t.AppendFormat(b, "2006-01-02T15:04:05.000000Z07:00")
		b = append(b, " DEBUG hyper::proto::h1::io: flushed "...)
		b = strconv.AppendInt(b, int64(g.r.IntN(9000)), 10)
		return append(b, " bytes"...)
	case 5:
		b = g.t.AppendFormat(b, "2006-01-02T15:04:05.000000Z07:00")
		b = append(b, "  INFO nowledge_mem::memory: search query=\""...)
		b = append(b, g.pick(queries)...)
		b = append(b, "\" results="...)
		b = strconv.AppendInt(b, int64(g.r.IntN(50)), 10)
		b = append(b, " took_ms="...)
		return strconv.AppendInt(b, int64(g.r.IntN(200)), 10)
	case 6:
		b = append(b, `{"time":"`...)
		b = g.t.AppendFormat(b, time.RFC3339Nano)
		b = append(b, `","level":"INFO","msg":"request handled","method":"POST","path":"/mcp","status":200,"dur_ms":`...)
		b = strconv.AppendInt(b, int64(g.r.IntN(90)), 10)
		b = append(b, `,"session":"`...)
		b = g.sid(b)
		return append(b, `"}`...)
	default:
		b = g.t.AppendFormat(b, "2006-01-02 15:04:05")
		b = append(b, " [nowledge-mem] embedding batch of "...)
		b = strconv.AppendInt(b, int64(g.r.IntN(64)), 10)
		return append(b, " chunks finished in 0.42s, queue depth 3, cache hit ratio 0.91"...)
	}
}

// hit appends a line the classifier (and grep with its literals) matches.
func (g *gen) hit(b []byte) []byte {
	ts := g.t.AppendFormat(nil, "2006-01-02T15:04:05.000Z07:00")
	b = append(b, ts...)
	switch g.r.IntN(6) {
	case 0:
		b = append(g.tagged(b, "error"), "nowledge-mem: Streamable HTTP error: Error POSTing to endpoint: Not Found: Session not found"...)
	case 1:
		b = append(b, "  WARN rmcp::transport::streamable_http_server: session not found session_id="...)
		b = g.sid(b)
	case 2:
		b = append(g.tagged(b, "warn"), "nowledge-mem: Failed to open SSE stream: Not Found"...)
	case 3:
		b = append(b, "  INFO nowledge_mem::mcp: MCP session idle timeout and restart restore store configured seconds=43200 store_path=/home/u/.local/share/co.nowledge.mem.desktop/mcp-sessions.json"...)
	case 4:
		b = append(g.tagged(b, "info"), "Reconnected to MCP server nowledge-mem"...)
	default:
		b = append(g.tagged(b, "error"), `{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}`...)
	}
	return b
}
