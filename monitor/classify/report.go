package classify

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

// Report is the result of scanning files: `watchdog scan FILE... [--json]`.
// Session ids in it are masked.
type Report struct {
	Files    []FileSummary `json:"files"`
	Findings []Finding     `json:"findings"`
	// Counts: findings per kind name over all files, every kind present.
	Counts map[string]int `json:"counts"`
}

// FileSummary describes one scanned file.
type FileSummary struct {
	File  string `json:"file"`
	Bytes int64  `json:"bytes"`
	Lines int64  `json:"lines"`
	// Candidates: lines holding a prefilter literal (what grep -F -c counts).
	Candidates int64 `json:"candidate_lines"`
	// Findings: classified lines, kept or dropped.
	Findings int `json:"findings"`
	// Dropped: findings over Options.MaxFindings, counted but not listed.
	Dropped int `json:"dropped,omitempty"`
	// Counts: findings per kind name in this file (kinds with none omitted).
	Counts map[string]int `json:"counts"`
	Error  string         `json:"error,omitempty"`
}

// Finding is one classified line.
type Finding struct {
	File string
	Line int64 // 1-based
	// Match.Session is masked. When Line named no session, it is the
	// first id display masking hides ("Session not found: X"), if any.
	Match Match
	// Text is the line, session ids masked, cut to about MaxText bytes,
	// with control and bidi characters escaped (textsafe.Escape).
	Text string
}

// findingJSON is Finding's stable JSON shape.
type findingJSON struct {
	File               string `json:"file"`
	Line               int64  `json:"line"`
	Time               string `json:"time,omitempty"`
	Kind               Kind   `json:"kind"`
	Rule               string `json:"rule"`
	Session            string `json:"session,omitempty"`
	IdleTimeoutSeconds int64  `json:"idle_timeout_seconds,omitempty"`
	StorePath          string `json:"store_path,omitempty"`
	Text               string `json:"text"`
}

// MarshalJSON writes {"file","line","time","kind","rule","session",
// "idle_timeout_seconds","store_path","text"}; empty optional fields are left
// out, time is RFC 3339 with nanoseconds.
func (f Finding) MarshalJSON() ([]byte, error) {
	j := findingJSON{File: f.File, Line: f.Line, Kind: f.Match.Kind, Rule: f.Match.Rule,
		Session: f.Match.Session, IdleTimeoutSeconds: int64(f.Match.IdleTimeout / time.Second),
		StorePath: f.Match.StorePath, Text: f.Text}
	if !f.Match.Time.IsZero() {
		j.Time = f.Match.Time.Format(time.RFC3339Nano)
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *Finding) UnmarshalJSON(b []byte) error {
	var j findingJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = Finding{File: j.File, Line: j.Line, Text: j.Text, Match: Match{Kind: j.Kind, Rule: j.Rule,
		Session: j.Session, IdleTimeout: time.Duration(j.IdleTimeoutSeconds) * time.Second, StorePath: j.StorePath}}
	if j.Time != "" {
		t, err := time.Parse(time.RFC3339Nano, j.Time)
		if err != nil {
			return fmt.Errorf("finding time: %w", err)
		}
		f.Match.Time = t
	}
	return nil
}

func newReport() Report {
	r := Report{Files: []FileSummary{}, Findings: []Finding{}, Counts: map[string]int{}}
	for _, k := range Kinds() {
		r.Counts[k.String()] = 0
	}
	return r
}

func (r *Report) add(sum FileSummary, found []Finding) {
	if sum.Counts == nil {
		sum.Counts = map[string]int{}
	}
	r.Files = append(r.Files, sum)
	r.Findings = append(r.Findings, found...)
	for k, n := range sum.Counts {
		r.Counts[k] += n
	}
}

// WriteText writes the report for people: one row per finding (time,
// file:line, kind, session, text), then a line per file and the totals.
// File names and texts are escaped (textsafe.Escape) so no file name or
// log line can drive the terminal.
func (r Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(r.Findings) > 0 {
		fmt.Fprintln(tw, "TIME\tFILE:LINE\tKIND\tSESSION\tTEXT")
	}
	for _, f := range r.Findings {
		t, s := "-", f.Match.Session
		if !f.Match.Time.IsZero() {
			t = f.Match.Time.Format("2006-01-02T15:04:05.000Z07:00")
		}
		if s == "" {
			s = "-"
		}
		fmt.Fprintf(tw, "%s\t%s:%d\t%s\t%s\t%s\n", t, textsafe.Escape(f.File), f.Line, f.Match.Kind, s, textsafe.Escape(f.Text))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	var b strings.Builder
	if len(r.Findings) > 0 {
		b.WriteString("\n")
	}
	for _, s := range r.Files {
		fmt.Fprintf(&b, "%s: %d lines, %d candidates, %d findings", textsafe.Escape(s.File), s.Lines, s.Candidates, s.Findings)
		if s.Dropped > 0 {
			fmt.Fprintf(&b, " (%d not listed)", s.Dropped)
		}
		if s.Error != "" {
			fmt.Fprintf(&b, ", error: %s", textsafe.Escape(s.Error))
		}
		b.WriteString("\n")
	}
	b.WriteString("total:")
	for _, k := range Kinds() {
		fmt.Fprintf(&b, " %s=%d", k, r.Counts[k.String()])
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
