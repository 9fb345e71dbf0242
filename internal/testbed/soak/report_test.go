package soak

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
)

// report logs the figures and, with -soak.report, writes them as markdown.
func (w *world) report(r Report, d time.Duration, seed uint64) {
	text := r.Markdown(d, seed, w.faultSummary())
	w.t.Log("\n" + text)
	if *soakReport != "" {
		if err := os.WriteFile(*soakReport, []byte(text), 0o644); err != nil {
			w.t.Errorf("write the soak report: %v", err)
		}
	}
	for _, k := range FaultKinds() {
		if w.faults[k] == 0 {
			w.t.Errorf("the soak never applied a %s fault; run it longer", k)
		}
	}
	if len(w.faultErrs) > 0 {
		w.t.Errorf("faults that could not be applied: %q", w.faultErrs)
	}
}

func (w *world) faultSummary() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(w.faults)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, w.faults[k]))
	}
	return fmt.Sprintf("%s; watchdog kills mid-incident %d; journal checked after %d kill -9",
		strings.Join(parts, ", "), w.midIncid, w.jChecks)
}

// Markdown renders the figures as a table for docs/RELIABILITY.md.
func (r Report) Markdown(d time.Duration, seed uint64, faults string) string {
	var b strings.Builder
	row := func(what string, v any) { fmt.Fprintf(&b, "| %s | %v |\n", what, v) }
	fmt.Fprintf(&b, "Soak of %s, seed %d. Faults: %s.\n\n| figure | value |\n|---|---|\n", d, seed, faults)
	row("sessions the servers started", r.Sessions)
	row("sessions they ended (by reason)", fmt.Sprintf("%d %v", r.Ended, r.EndedBy))
	row("never seeable (lived < 300 ms while the watchdog ran)", r.Unseeable)
	row("ended in the last second before the daemon's final stop, undetected (not judged)", r.AtTheEnd)
	row("detected", r.Detected)
	row("missed", len(r.Missed))
	row(fmt.Sprintf("detected later than %s", DetectWithin), len(r.Late))
	row("detection latency p50 / p99 / max", fmt.Sprintf("%s / %s / %s", r.LatencyP50.Round(time.Millisecond), r.LatencyP99.Round(time.Millisecond), r.LatencyMax.Round(time.Millisecond)))
	row("false session_lost / session_expired", len(r.FalseAlarms))
	row("session_expired for a session a kill ended", r.ExpiredNotIdle)
	row("incidents / loss notifications", fmt.Sprintf("%d / %d", sum(r.Incidents), sum(r.LossNotes)))
	row("recovered / recovered notifications", fmt.Sprintf("%d / %d", sum(r.Recovered), sum(r.RecoveredNotes)))
	row("notifications re-sent by a restarted daemon (at least once across kill -9)", sum(r.Resent))
	row("other notifications (at risk, heal failed)", r.OtherNotes)
	row("kept-warm sessions that expired", len(r.KeptWarmExpired))
	row("dead hosts' sessions kept alive", len(r.DeadHostAlive))
	row("log lines journaled twice after a kill -9", len(r.Replayed))
	return b.String()
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
