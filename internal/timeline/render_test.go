package timeline

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// readFixture reads a journal from testdata as the daemon wrote it.
func readFixture(t testing.TB, name string) []journal.Record {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var recs []journal.Record
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		r, err := journal.Decode(line)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		recs = append(recs, r)
	}
	return recs
}

func render(t *testing.T, p Page) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, p, Options{Generated: p.To}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// The page stands alone: nothing in it fetches anything, and a script
// cannot run even if one got in.
func TestPageIsSelfContained(t *testing.T) {
	t.Parallel()
	html := render(t, Build(incidentJournal(), at(0), at(200)))
	for _, bad := range []string{"<script", "src=", "<link", "@import", "url("} {
		if strings.Contains(html, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	if !strings.Contains(html, `content="default-src 'none'; style-src 'unsafe-inline'"`) {
		t.Error("the page does not forbid fetching and scripts")
	}
}

// What the journal says is text on the page, never markup: a server name
// or detail from a hostile config or log is escaped.
func TestJournalTextIsEscaped(t *testing.T) {
	t.Parallel()
	evil := `<img src=x onerror=alert(1)>`
	lost := rec(10, health.EvSessionLost, evil, "aaaa…aaaa")
	lost.Facts, lost.Detail = health.Loss{Incident: true}, evil
	html := render(t, Build([]journal.Record{rec(1, health.EvSessionNew, evil, "aaaa…aaaa"), lost}, at(0), at(200)))
	if strings.Contains(html, evil) {
		t.Fatal("a journal field went onto the page as markup")
	}
	if !strings.Contains(html, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Fatal("the hostile name is not shown as text")
	}
}

// One bar per host session, the other clients' sessions summed, the
// incident count on top, and only masked ids.
func TestPageOfARealJournal(t *testing.T) {
	t.Parallel()
	recs := readFixture(t, "soak-3min.jsonl")
	from, to := recs[0].Time, recs[len(recs)-1].Time
	html := render(t, Build(recs, from, to))
	bars, summed := countSessions(html)
	if want := fixtureSessions(recs); bars+summed != want || bars == 0 || summed == 0 {
		t.Errorf("%d session bars and %d summed, want both kinds and the journal's %d sessions in all", bars, summed, want)
	}
	if others := strings.Count(html, "other-agent"); others != 0 {
		t.Errorf("another client's session has a bar of its own (%d mentions)", others)
	}
	if m := regexp.MustCompile(`id="incidents">(\d+)<`).FindStringSubmatch(html); m == nil || m[1] != "36" {
		t.Errorf("incident count %v, want 36 (the fixture's session_lost records with incident)", m)
	}
	if full := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-`).FindString(html); full != "" {
		t.Errorf("a full session id is on the page: %s", full)
	}
}

// fixtureSessions counts the distinct sessions the journal names, the way
// a reader of the journal would: by server and masked id.
func fixtureSessions(recs []journal.Record) int {
	seen := map[string]bool{}
	for _, r := range recs {
		switch r.Kind {
		case health.EvSessionNew, health.EvKeepWarm, health.EvKeepWarmFailed, health.EvSessionAtRisk,
			health.EvSessionExpired, health.EvSessionEnded, health.EvSessionLost:
			if r.Session != "" {
				seen[r.Server+" "+r.Session] = true
			}
		}
	}
	return len(seen)
}

// countSessions reads a page: its session bars, and the sessions its
// lanes say they summed.
func countSessions(page string) (bars, summed int) {
	bars = len(regexp.MustCompile(`<rect class="session [a-z]+" data-session="[^"]+"`).FindAllString(page, -1))
	for _, m := range regexp.MustCompile(`(\d+) others, summed`).FindAllStringSubmatch(page, -1) {
		n, _ := strconv.Atoi(m[1])
		summed += n
	}
	return bars, summed
}

// On a week-long page a run of seconds still shows: every bar, band and
// summed stretch is at least minMark wide.
func TestMarksShowAtAnySpan(t *testing.T) {
	t.Parallel()
	recs := readFixture(t, "soak-3min.jsonl")
	last := recs[len(recs)-1].Time
	html := render(t, Build(recs, last.Add(-MaxSpan), last))
	widths := regexp.MustCompile(`<rect class="(?:session [a-z]+|incident|others)"[^>]* width="([0-9.]+)"`).FindAllStringSubmatch(html, -1)
	if len(widths) < 50 {
		t.Fatalf("%d marks on the page", len(widths))
	}
	for _, w := range widths {
		if f, _ := strconv.ParseFloat(w[1], 64); f < minMark {
			t.Errorf("a mark %.1f px wide on a week-long page: %s", f, w[0])
		}
	}
}
