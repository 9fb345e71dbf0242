package timeline

import (
	"encoding/json"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// measure is a script the test (never the page) adds: it writes what the
// browser drew, each mark's laid-out box, into the DOM for --dump-dom.
const measure = `<script>
const marks = [];
for (const el of document.querySelectorAll('#chart rect.session, #chart line.ping')) {
  const r = el.getBoundingClientRect();
  marks.push({class: el.getAttribute('class'), id: el.dataset.session || '', left: r.left, width: r.width,
    stroke: parseFloat(getComputedStyle(el).strokeWidth) || 0});
}
const pre = document.createElement('pre');
pre.id = 'measured';
pre.textContent = JSON.stringify(marks);
document.body.appendChild(pre);
</script>`

type drawn struct {
	Class, ID   string
	Left, Width float64
	Stroke      float64
}

// measured loads page in Chromium with the measuring script and returns
// the boxes it drew.
func measured(t *testing.T, bin, page string) []drawn {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(data), "default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';", 1)
	src = strings.Replace(src, "</body>", measure+"</body>", 1)
	probe := filepath.Join(t.TempDir(), "measured.html")
	if err := os.WriteFile(probe, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	dom := string(runChromium(t, bin, "--dump-dom", "file://"+probe))
	m := regexp.MustCompile(`(?s)<pre id="measured">(.*?)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the measuring script wrote nothing:\n%.2000s", dom)
	}
	var out []drawn
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &out); err != nil {
		t.Fatalf("measured: %v", err)
	}
	return out
}

// TestTimelineFitsAShortRun: `watchdog demo --fast` journals 18 s; the
// page without --since spans the journal's own minute, and the browser
// draws each bar as wide as its share of it (never under minMark), the
// run across a good part of the chart, each keep-warm ping a visible tick.
// make pictures saves its screenshot as the README's picture.
func TestTimelineFitsAShortRun(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	recs := readFixture(t, "demo-fast.jsonl")
	state := t.TempDir()
	raw, err := os.ReadFile("testdata/demo-fast.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, journal.FileName), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	last := recs[len(recs)-1].Time
	path, err := WriteFile(WriteOptions{StateDir: state, Now: last.Add(3 * time.Hour), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	from, to := JournalWindow(recs, last)
	if span := to.Sub(from); span != MinSpan {
		t.Fatalf("the window of an 18 s journal is %s, want %s", span, MinSpan)
	}
	page := Build(recs, from, to)

	boxes := measured(t, bin, path)
	checkBars(t, page, boxes)
	checkPings(t, page, boxes)

	shot := filepath.Join(t.TempDir(), "timeline.png")
	runChromium(t, bin, "--window-size=1240,880", "--screenshot="+shot, "file://"+path)
	if colors := distinctColors(decodePNG(t, shot)); colors < 8 {
		t.Errorf("the screenshot has %d colours: the page did not draw", colors)
	}
	if *savePNG != "" {
		data, _ := os.ReadFile(shot)
		if err := os.WriteFile(*savePNG, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkBars: every session's bar is drawn as wide as its share of the
// window, at least minMark, and the run spans its share of the chart.
func checkBars(t *testing.T, page Page, boxes []drawn) {
	t.Helper()
	byID := map[string]drawn{}
	left, right := math.Inf(1), math.Inf(-1)
	for _, b := range boxes {
		if strings.HasPrefix(b.Class, "session") {
			byID[b.ID] = b
			left, right = min(left, b.Left), max(right, b.Left+b.Width)
		}
	}
	span := float64(page.To.Sub(page.From))
	n := 0
	first, last := page.To, page.From
	for _, s := range page.Servers {
		for _, sess := range s.Sessions {
			n++
			first, last = minTime(first, sess.From), maxTime(last, sess.To)
			b, ok := byID[sess.ID]
			want := max(float64(sess.To.Sub(sess.From))/span*chartWidth, minMark)
			if !ok || math.Abs(b.Width-want) > 0.6 {
				t.Errorf("session %s drawn %.1f px wide (found %v), want %.1f", sess.ID, b.Width, ok, want)
			}
		}
	}
	if n != len(byID) || n < 4 {
		t.Errorf("%d bars drawn, %d sessions in the journal", len(byID), n)
	}
	run := float64(last.Sub(first)) / span * chartWidth
	if right-left < run-1 || run < 0.29*chartWidth {
		t.Errorf("the bars span %.0f px of the chart, want the run's %.0f px (over 29%% of %v)", right-left, run, chartWidth)
	}
}

// checkPings: each keep-warm ping is a tick at least a pixel wide.
func checkPings(t *testing.T, page Page, boxes []drawn) {
	t.Helper()
	want := 0
	for _, s := range page.Servers {
		for _, sess := range s.Sessions {
			want += len(sess.Pings)
		}
	}
	got := 0
	for _, b := range boxes {
		if b.Class == "ping" {
			got++
			if b.Stroke < 1 {
				t.Errorf("a ping tick is drawn %.1f px wide", b.Stroke)
			}
		}
	}
	if got != want || want == 0 {
		t.Errorf("%d ping ticks drawn, want the journal's %d", got, want)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
