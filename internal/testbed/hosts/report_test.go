package hosts

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/homeguard"
)

var (
	reportPath = flag.String("hosts.report", "", "write the measured host table (markdown) to this file")
	readmePath = flag.String("hosts.readme", "", "write the host table's summary between the host-table markers of this file (docs/HOSTS.md)")
	matrix     = flag.Bool("hosts.matrix", false, "measure every server (make hosts); without it a host's row is measured on the Go SDK server only")
)

// serverKinds are the servers this run measures each host against.
func serverKinds() []ServerKind {
	if *matrix {
		return ServerKinds()
	}
	return ServerKinds()[:1]
}

// row is one measured cell of the host table: a host, a server, a loss, a
// setup, and what the host's user saw of the calls after the loss.
type row struct {
	host, server, loss, setup string
	order                     int // the cell's place in the table
	calls, failed, ranTwice   int
	seen                      string // the first failed call's text
	hung                      bool   // the first call after the loss got no answer
}

func (r row) verdict() string {
	switch {
	case r.hung:
		return "HANGS"
	case r.failed == r.calls:
		return "STUCK"
	case r.failed == 0:
		return "every call worked"
	default:
		return fmt.Sprintf("%d of %d failed", r.failed, r.calls)
	}
}

// report is the host table this run measures: every host's row test adds
// its cells, and TestMain writes it once all passed. Test-only state, as
// the flags are.
var report = &table{}

func TestMain(m *testing.M) {
	flag.Parse()
	code := homeguard.Main(m)
	removeBuiltWatchdog()
	if code == 0 && *reportPath != "" {
		if err := report.write(*reportPath); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	if code == 0 && *readmePath != "" {
		if err := report.writeSummary(*readmePath); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// table collects the cells of the host rows (subtests run in parallel).
type table struct {
	mu       sync.Mutex
	rows     []row
	stdio    []stdioRow // the stdio crash cells (stdio_test.go)
	late     []lateRow  // the server-down-at-start cells (late_test.go)
	versions []string
}

func (tb *table) add(r row) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.rows = append(tb.rows, r)
}

// host notes a host's name and version for the table's heading.
func (tb *table) host(nameVersion string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if !slices.Contains(tb.versions, nameVersion) {
		tb.versions = append(tb.versions, nameVersion)
	}
}

// write renders the table into path.
func (tb *table) write(path string) error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	rows := slices.Clone(tb.rows)
	slices.SortFunc(rows, func(a, b row) int { return cmp.Or(strings.Compare(a.host, b.host), a.order-b.order) })
	versions := slices.Sorted(slices.Values(tb.versions))
	var b strings.Builder
	fmt.Fprintf(&b, "# The host table, measured\n\nWritten by internal/testbed/hosts (`make hosts`) on %s, %s/%s. Real hosts: %s. "+
		"A stand-in model API on loopback drives the calls; no model, no network. Three calls are made after each loss.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.GOOS, runtime.GOARCH, strings.Join(versions, ", "))
	b.WriteString("| Host | Server | Loss | Setup | After the loss | Failed calls | Run twice | What the host's user saw |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		seen, _, _ := strings.Cut(r.seen, "\n\nStack backtrace")
		// A host that wraps the SDK's error in its own JSON: the SDK's words.
		if i := strings.Index(seen, "Error POSTing to endpoint"); i > 0 && strings.HasPrefix(seen, "{") {
			seen = strings.NewReplacer(`\\\"`, `"`, `\\n`, "", `\"`, `"`, `\n`, "").Replace(seen[i:])
			seen, _, _ = strings.Cut(seen, `","isError"`)
			seen = "… " + seen
		}
		seen = strings.Join(strings.Fields(seen), " ")
		if len(seen) > 200 {
			seen = seen[:200] + "…"
		}
		seen = strings.NewReplacer("|", "\\|", "`", "'").Replace(seen)
		if seen == "" {
			seen = "the echo"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d of %d | %d | %s |\n",
			r.host, r.server, r.loss, r.setup, r.verdict(), r.failed, r.calls, r.ranTwice, "`"+seen+"`")
	}
	tb.writeStdio(&b)
	tb.writeLate(&b)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write the host table: %w", err)
	}
	return nil
}
