package classify

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/testbed/scan/loggen"
)

func BenchmarkClassify(b *testing.B) {
	lines := []struct{ name, line string }{
		{"ordinary", "2025-11-29T08:00:00.138000Z  INFO rmcp::service: served request method=\"tools/call\" id=13415"},
		{"session_lost", "2025-11-29T20:15:44.870112Z  WARN rmcp::transport::streamable_http_server::tower: session not found session_id=6f1c2b3a-9d4e-4f5a-8b6c-7d8e9f0a1b2c"},
		{"post_404_json", `2025-11-29T20:15:44.872Z error [dsh-mcp-client] nowledge-mem: Error POSTing to endpoint (HTTP 404): {"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}`},
		{"idle_timeout", "2025-11-29T08:00:00.104988Z  INFO nowledge_mem::mcp: MCP session idle timeout and restart restore store configured seconds=43200 store_path=/home/u/.local/share/co.nowledge.mem.desktop/mcp-sessions.json"},
		{"json_reconnected", `{"level":30,"time":1764405300123,"pid":4242,"msg":"client 2e3d4c5b reconnected","sessions":1}`},
	}
	for _, l := range lines {
		b.Run(l.name, func(b *testing.B) {
			line := []byte(l.line)
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				LogLine(line)
			}
		})
	}
}

// benchLog writes a generated log of size bytes with sparse hits.
func benchLog(b *testing.B, size int64) string {
	b.Helper()
	return writeBenchLog(b, size, func(f *os.File) error { _, err := loggen.Write(f, size, 40000, 1); return err })
}

// benchShortLog is the short-line shape: ~80-byte lines from a dozen
// templates, one hit in 2,000.
func benchShortLog(b *testing.B, size int64) string {
	b.Helper()
	return writeBenchLog(b, size, func(f *os.File) error { _, err := loggen.WriteShort(f, size, 2000, 1); return err })
}

func writeBenchLog(b *testing.B, size int64, write func(*os.File) error) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.log")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := write(f); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkScanFile measures the whole scan (read, search, line numbers,
// classify) from the page cache. Compare MB/s with `grep -F -c` using
// Literals(); scripts/bench-scan.sh does that on 1 GiB.
func BenchmarkScanFile(b *testing.B) {
	b.Run("long", func(b *testing.B) { benchScanFile(b, benchLog(b, 64<<20)) })
	b.Run("short", func(b *testing.B) { benchScanFile(b, benchShortLog(b, 64<<20)) })
}

func benchScanFile(b *testing.B, path string) {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ResetTimer()
	for b.Loop() {
		rep, err := Scan(context.Background(), []string{path}, nil)
		if err != nil || rep.Files[0].Findings == 0 {
			b.Fatalf("%v %+v", err, rep.Files)
		}
	}
}

// BenchmarkScanNaive is the obvious loop the scan replaces: every line, every
// literal. Kept to show what the skip tables buy.
func BenchmarkScanNaive(b *testing.B) {
	path := benchLog(b, 64<<20)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	lits := make([][]byte, 0, len(Literals()))
	for _, l := range Literals() {
		lits = append(lits, []byte(l))
	}
	b.SetBytes(st.Size())
	b.ResetTimer()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), MaxLine)
		n := 0
		for sc.Scan() {
			for _, l := range lits {
				if bytes.Contains(sc.Bytes(), l) {
					n++
					break
				}
			}
		}
		f.Close()
		if n == 0 {
			b.Fatal("no hits")
		}
	}
}

// BenchmarkMatcher is the literal search alone on data in memory, on both
// log shapes.
func BenchmarkMatcher(b *testing.B) {
	b.Run("long", func(b *testing.B) { benchMatcher(b, benchLog(b, 16<<20)) })
	b.Run("short", func(b *testing.B) { benchMatcher(b, benchShortLog(b, 16<<20)) })
}

func benchMatcher(b *testing.B, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	var hits []hit
	b.ResetTimer()
	for b.Loop() {
		hits = std.match.find(data, hits[:0])
	}
}
