package demo

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

func TestSummaryTable(t *testing.T) {
	t.Parallel()
	ok := []Act{{N: 1, Title: "one", OK: true, Evidence: "7 pings"}, {N: 2, Title: "two", OK: true, Evidence: "fast"},
		{N: 3, Title: "three", OK: true, Evidence: "quick"}, {N: 4, Title: "four", OK: true, Evidence: "no failed call"},
		{N: 5, Title: "five", OK: true, Evidence: "bridged"}}
	failed := append(append([]Act(nil), ok[:2]...), Act{N: 3, Title: "three", Failure: "no trigger"})
	tests := []struct {
		name   string
		res    Result
		wantOK bool
		want   []string
	}{
		{"all ok", Result{Acts: ok, Took: 15 * time.Second}, true, []string{"act", "evidence", "7 pings", "every act did what it narrated (15s)"}},
		{"one failed", Result{Acts: failed, Dir: "/tmp/x"}, false, []string{"FAILED", "no trigger", "kept in /tmp/x"}},
		{"missing acts", Result{Acts: ok[:2]}, false, []string{"FAILED"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.res.OK() != tt.wantOK {
				t.Fatalf("OK() = %v, want %v", tt.res.OK(), tt.wantOK)
			}
			got := SummaryTable(tt.res)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("summary lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

// Narration masks every full session id and skips kinds it does not tell.
func TestNarration(t *testing.T) {
	t.Parallel()
	const id = "H54NQWERTYUIOPASDFGHJK5JOG"
	var out bytes.Buffer
	n := &narrator{out: &out, start: time.Now(), ids: func() []string { return []string{id} }}
	n.say("client: session %s", id)
	n.journal(Record{Kind: "session_lost", Detail: "gone " + id, Facts: health.Loss{Incident: true}})
	n.journal(Record{Kind: "notified", Detail: "not narrated"})
	got := out.String()
	if strings.Contains(got, id) || !strings.Contains(got, "H54N…5JOG") {
		t.Errorf("full id printed or not masked:\n%s", got)
	}
	if !strings.Contains(got, "detected:") {
		t.Errorf("the loss was not narrated:\n%s", got)
	}
	if strings.Contains(got, "not narrated") {
		t.Errorf("a kind that is not narrated was printed:\n%s", got)
	}
}
