package soak

import (
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// The losses a start near the final crash re-held reach back past every
// run that was killed before its own storm's summary was due.
func TestReheldReachesBackOverShortRuns(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 13, 8, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	tests := []struct {
		name     string
		starts   []float64
		stopped  float64
		from, to float64 // 0, 0: none
	}{
		{"the last start long before the end", []float64{0, 30}, 60, 0, 0},
		{"one start near the end", []float64{0, 45.5, 80.7}, 90.6, 45.5, 80.7},
		{"a short run before it", []float64{0, 45.5, 76.4, 80.7}, 90.6, 45.5, 80.7},
		{"two short runs before it", []float64{0, 45.5, 70, 76.4, 80.7}, 90.6, 45.5, 80.7},
		{"every run short", []float64{0, 5, 10}, 15, 0, 10},
		{"one start only", []float64{85}, 90, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Stopped: at(tt.stopped)}
			for _, s := range tt.starts {
				in.Journal = append(in.Journal, Seen{At: at(s), Rec: journal.Record{Kind: health.EvStarted}})
			}
			from, to := reheld(in)
			var wantFrom, wantTo time.Time
			if tt.to != 0 {
				wantFrom, wantTo = at(tt.from), at(tt.to)
			}
			if !from.Equal(wantFrom) || !to.Equal(wantTo) {
				t.Errorf("reheld = %s–%s, want %s–%s", from.Format("15:04:05.0"), to.Format("15:04:05.0"), wantFrom.Format("15:04:05.0"), wantTo.Format("15:04:05.0"))
			}
		})
	}
}
