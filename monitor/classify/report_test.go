package classify

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestReportJSON(t *testing.T) {
	t.Parallel()
	rep, err := Scan(context.Background(), fixturePaths(t), &Options{Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range fixtureIDs {
		if bytes.Contains(b, []byte(id)) {
			t.Errorf("JSON holds the full session id %s", id)
		}
	}
	var doc struct {
		Files    []map[string]any `json:"files"`
		Findings []map[string]any `json:"findings"`
		Counts   map[string]int   `json:"counts"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"session_lost": 8, "idle_timeout": 4, "legacy_header_rejected": 2, "reconnected": 4, "sse_stream_404": 1, "session_closed": 0}
	for k, n := range want {
		if doc.Counts[k] != n {
			t.Errorf("counts[%s] = %d, want %d", k, doc.Counts[k], n)
		}
	}
	if len(doc.Counts) != len(want) {
		t.Errorf("counts %v", doc.Counts)
	}
	if got := slices.Sorted(maps.Keys(doc.Files[0])); !slices.Equal(got, []string{"bytes", "candidate_lines", "counts", "file", "findings", "lines"}) {
		t.Errorf("file keys %v", got)
	}
	// The idle-timeout finding carries every optional field.
	var idle map[string]any
	for _, f := range doc.Findings {
		if f["rule"] == "idle_timeout_configured" {
			idle = f
			break
		}
	}
	if got := slices.Sorted(maps.Keys(idle)); !slices.Equal(got, []string{"file", "idle_timeout_seconds", "kind", "line", "rule", "store_path", "text", "time"}) {
		t.Errorf("finding keys %v", got)
	}
	if idle["idle_timeout_seconds"] != 43200.0 || idle["kind"] != "idle_timeout" || idle["time"] != "2025-11-29T08:00:00.104988Z" {
		t.Errorf("idle finding %v", idle)
	}
	checkRoundTrip(t, b, rep)
}

// checkRoundTrip checks that the findings of rep, marshalled as b, survive
// a round trip.
func checkRoundTrip(t *testing.T, b []byte, rep Report) {
	t.Helper()
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Findings) != len(rep.Findings) {
		t.Fatalf("%d findings back, want %d", len(back.Findings), len(rep.Findings))
	}
	for i, f := range back.Findings {
		o := rep.Findings[i]
		if f.File != o.File || f.Line != o.Line || f.Text != o.Text || !f.Match.Time.Equal(o.Match.Time) {
			t.Errorf("round trip %d: %+v, want %+v", i, f, o)
		}
		f.Match.Time = o.Match.Time
		if f.Match != o.Match {
			t.Errorf("round trip %d: %+v, want %+v", i, f.Match, o.Match)
		}
	}
}

func TestEmptyReportJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(newReport())
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"files":[],"findings":[],"counts":{"idle_timeout":0,"legacy_header_rejected":0,"reconnected":0,"session_closed":0,"session_lost":0,"sse_stream_404":0}}`
	if string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
}

func TestWriteText(t *testing.T) {
	t.Parallel()
	rep, err := Scan(context.Background(), []string{"testdata/dsh-host.log", "testdata/missing.log"}, &Options{Location: time.UTC})
	if err == nil {
		t.Fatal("missing file not reported")
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, id := range fixtureIDs {
		if strings.Contains(out, id) {
			t.Errorf("text holds the full session id %s", id)
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "TIME") || !strings.Contains(lines[0], "FILE:LINE") || !strings.Contains(lines[0], "SESSION") {
		t.Errorf("header %q", lines[0])
	}
	row := strings.Fields(lines[4]) // the second POST 404
	if len(row) < 5 || row[0] != "2025-11-29T20:15:44.872Z" || row[1] != "testdata/dsh-host.log:9" || row[2] != "session_lost" || row[3] != "6f1c…1b2c" {
		t.Errorf("row %q", lines[4])
	}
	if !strings.Contains(out, "testdata/dsh-host.log: 16 lines, 8 candidates, 6 findings") ||
		!strings.Contains(out, "testdata/missing.log: 0 lines, 0 candidates, 0 findings, error: ") ||
		!strings.HasSuffix(out, "total: session_lost=2 idle_timeout=0 legacy_header_rejected=0 reconnected=3 sse_stream_404=1 session_closed=0\n") {
		t.Errorf("summary:\n%s", out)
	}
}
