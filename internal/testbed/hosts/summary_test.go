package hosts

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The host table of docs/HOSTS.md sits between these markers; make hosts rewrites
// what is between them and nothing else.
const (
	summaryBegin = "<!-- host-table:begin (make hosts writes this table) -->"
	summaryEnd   = "<!-- host-table:end -->"
)

// summaryColumns are the host table's columns after the host: how the
// host met each kind of loss, straight to the server, patched, and
// through the proxy. A cell is measured on every server and loss the
// column covers.
var summaryColumns = []struct {
	title string
	takes func(r row) bool
}{
	{"straight to the server, a 404 (Go SDK, TS SDK)", func(r row) bool { return r.direct() && r.server != string(TSQuirk) }},
	{"straight to the server, the 400 quirk", func(r row) bool { return r.direct() && r.server == string(TSQuirk) }},
	{"client patched", func(r row) bool { return r.setup == "patched" }},
	{"through the watchdog's proxy", func(r row) bool { return r.setup == "proxied" || r.setup == "adopted" }},
}

// stdioColumns are the host table's stdio columns: what the host's
// calls did when its stdio server was killed -9 after the 1st and 2nd of
// them (stdio_test.go), alone and through `watchdog stdio`.
var stdioColumns = []struct{ title, setup string }{
	{"a stdio server killed -9 twice", "straight"},
	{"the same, adopted (`watchdog stdio`)", "adopted"},
}

// stdioCell says what host's calls did in its stdio cell of setup: the
// calls after the first kill, as the other columns count the calls after
// a loss.
func (tb *table) stdioCell(host, setup string) string {
	for _, r := range tb.stdio {
		if r.host == host && r.setup == setup {
			after := row{calls: stdioCalls - 1, failed: stdioCalls - r.ok}
			return after.verdict()
		}
	}
	return "—"
}

// direct: the host reached the server itself, unhelped.
func (r row) direct() bool { return r.setup == "direct" || r.setup == "unpatched" }

// summary is the host table of docs/HOSTS.md: one line per host, what its
// calls after a loss did in each column, and the run's date and versions;
// its link to every cell is relative to docs/, where the report lives too.
func (tb *table) summary() string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	versions := slices.Sorted(slices.Values(tb.versions))
	var b strings.Builder
	fmt.Fprintf(&b, "Measured by `make hosts` on %s on the real %s: three calls after each idle expiry and server restart; "+
		"four calls to a stdio server killed -9 after the 1st and the 2nd (its columns count the three after the first kill) "+
		"([every cell](HOSTS-LATEST.md)).\n\n", time.Now().UTC().Format("2006-01-02"), strings.Join(versions, ", "))
	b.WriteString("| host |")
	for _, c := range summaryColumns {
		b.WriteString(" " + c.title + " |")
	}
	for _, c := range stdioColumns {
		b.WriteString(" " + c.title + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(summaryColumns)+len(stdioColumns)) + "\n")
	var hosts []string
	for _, r := range tb.rows {
		hosts = append(hosts, r.host)
	}
	for _, r := range tb.stdio {
		hosts = append(hosts, r.host)
	}
	slices.Sort(hosts)
	for _, h := range slices.Compact(hosts) {
		b.WriteString("| " + h + " |")
		for _, c := range summaryColumns {
			b.WriteString(" " + tb.cell(h, c.takes) + " |")
		}
		for _, c := range stdioColumns {
			b.WriteString(" " + tb.stdioCell(h, c.setup) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// cell says what host's calls did in the rows takes keeps: the one
// verdict they share, or each verdict with how many rows had it.
func (tb *table) cell(host string, takes func(row) bool) string {
	count := map[string]int{}
	for _, r := range tb.rows {
		if r.host == host && takes(r) {
			count[r.verdict()]++
		}
	}
	switch len(count) {
	case 0:
		return "—"
	case 1:
		for v := range count {
			return v
		}
	}
	var parts []string
	for v, n := range count {
		parts = append(parts, fmt.Sprintf("%s (%d)", v, n))
	}
	slices.SortFunc(parts, func(a, b string) int { return cmp.Compare(a, b) })
	return strings.Join(parts, ", ")
}

// writeSummary puts the summary between the markers of the file at path
// (docs/HOSTS.md), leaving every other byte as it was; a file without both
// markers is left alone and named.
func (tb *table) writeSummary(path string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("write the host table: %w", err)
	}
	i, j := bytes.Index(old, []byte(summaryBegin)), bytes.Index(old, []byte(summaryEnd))
	if i < 0 || j < i {
		return fmt.Errorf("write the host table: %s lacks the lines %q and %q around the table", path, summaryBegin, summaryEnd)
	}
	var b bytes.Buffer
	b.Write(old[:i+len(summaryBegin)])
	b.WriteString("\n" + tb.summary())
	b.Write(old[j:])
	tmp, err := os.CreateTemp(filepath.Dir(path), ".host-table-*")
	if err != nil {
		return fmt.Errorf("write the host table: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("write the host table: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the host table: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("write the host table: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write the host table: %w", err)
	}
	return nil
}

// The summary replaces only what is between the file's markers, one
// line per host with each column's verdict; a file without the markers is
// refused and left as it was.
func TestSummaryBetweenTheMarkers(t *testing.T) {
	t.Parallel()
	tb := &table{versions: []string{"Codex CLI 0.169.0"}}
	for _, r := range []row{
		{host: "Codex CLI", server: string(GoSDK), setup: "direct", calls: 3},
		{host: "Codex CLI", server: string(TSQuirk), setup: "direct", calls: 3, failed: 3},
		{host: "Codex CLI", server: string(TSQuirk), setup: "proxied", calls: 3},
	} {
		tb.add(r)
	}
	tb.stdio = []stdioRow{{host: "Codex CLI", setup: "straight", ok: 1, starts: 1}, {host: "Codex CLI", setup: "adopted", ok: 4, starts: 3}}
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	before, after := "# Title\n\nintro\n"+summaryBegin+"\n", summaryEnd+"\n\nrest\n"
	if err := os.WriteFile(readme, []byte(before+"stale table\n"+after), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := tb.writeSummary(readme); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(readme)
	want := "| Codex CLI | every call worked | STUCK | — | every call worked | STUCK | every call worked |\n"
	if !strings.HasPrefix(string(got), before) || !strings.HasSuffix(string(got), after) ||
		!strings.Contains(string(got), want) || strings.Contains(string(got), "stale") || !strings.Contains(string(got), "Codex CLI 0.169.0") {
		t.Errorf("README after:\n%s\nwant the text around the markers kept, and the row %q", got, want)
	}
	bare := filepath.Join(dir, "bare.md")
	if err := os.WriteFile(bare, []byte("no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := tb.writeSummary(bare); err == nil || !strings.Contains(err.Error(), "host-table:begin") {
		t.Errorf("a file without markers: %v; want an error naming them", err)
	}
	if b, _ := os.ReadFile(bare); string(b) != "no markers\n" {
		t.Errorf("a file without markers was changed: %q", b)
	}
}
