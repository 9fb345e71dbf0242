package daemon

import (
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// TestUnreportedOutage: a start warns of the journal outage the last run
// saved as under way, unless the journal already has a warning for it: the
// outage's own (written after it began) or an earlier start's.
func TestUnreportedOutage(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	saved := trackedFile{JournalOutage: &savedOutage{Since: since, Error: "disk full"}}
	ended := func(at time.Time) journal.Record {
		return journal.Record{Kind: health.EvWarning, Time: at, Extra: map[string]any{"unwritable_ms": 5000.0}}
	}
	tests := []struct {
		name  string
		saved trackedFile
		recs  []journal.Record
		want  int
	}{
		{"no outage saved", trackedFile{}, nil, 0},
		{"an outage and no warning", saved, nil, 1},
		{"its own warning came before the kill", saved, []journal.Record{ended(since.Add(6 * time.Second))}, 0},
		{"only an earlier outage's warning", saved, []journal.Record{ended(since.Add(-time.Minute))}, 1},
		{"a start warned of it and was killed before it saved", saved, []journal.Record{
			{Kind: health.EvWarning, Time: since.Add(time.Minute), Extra: map[string]any{"unwritable_since": "2026-12-02T09:00:00Z"}}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := unreportedOutage(tt.saved, tt.recs, since.Add(time.Hour))
			if len(got) != tt.want {
				t.Fatalf("warnings %v, want %d", got, tt.want)
			}
			if tt.want == 1 && (got[0].Kind != health.EvWarning || got[0].Extra["error"] != "disk full") {
				t.Fatalf("warning %+v does not say what failed", got[0])
			}
		})
	}
}
