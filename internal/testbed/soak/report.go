package soak

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// table is a markdown table of figures being written.
type table struct{ b strings.Builder }

func (t *table) row(what string, v any) { fmt.Fprintf(&t.b, "| %s | %v |\n", what, v) }

// counts writes a count per reason, in the reasons' order: "idle 3, killed 1".
func counts(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Markdown renders the figures as a table for docs/RELIABILITY.md (make
// soak writes it to docs/SOAK-LATEST.md).
func (r Report) Markdown(d time.Duration, seed uint64, faults string) string {
	var t table
	fmt.Fprintf(&t.b, "Soak of %s, seed %d. Faults: %s.\n\n| figure | value |\n|---|---|\n", d, seed, faults)
	r.detectionRows(&t)
	r.wordRows(&t)
	r.notificationRows(&t)
	r.identityRows(&t)
	r.hostRows(&t)
	r.proxyRows(&t)
	r.lateRows(&t)
	return t.b.String()
}

func (r Report) detectionRows(t *table) {
	t.row("sessions the servers started", r.Sessions)
	t.row("sessions they ended (by reason)", fmt.Sprintf("%d (%s)", r.Ended, counts(r.EndedBy)))
	t.row("never seeable (lived < 300 ms while the watchdog ran)", r.Unseeable)
	t.row("ended in the last second before the daemon's final stop, undetected (not judged)", r.AtTheEnd)
	t.row("detected", r.Detected)
	t.row("missed", len(r.Missed))
	t.row(fmt.Sprintf("detected later than %s", DetectWithin), len(r.Late))
	t.row("detection latency p50 / p99 / max", fmt.Sprintf("%s / %s / %s", r.LatencyP50.Round(time.Millisecond),
		r.LatencyP99.Round(time.Millisecond), r.LatencyMax.Round(time.Millisecond)))
	f := r.JournalFail
	t.row("journal write failures injected / followed by a warning about the journal", fmt.Sprintf("%d / %d", f.Spans, f.Warned))
	t.row("expiries and losses during a journal write failure / lost", fmt.Sprintf("%d / %d", f.Events, len(f.Lost)))
}

// wordRows: whether what the journal says is true.
func (r Report) wordRows(t *table) {
	t.row("false session_lost / session_expired", len(r.FalseAlarms))
	t.row("killed sessions journaled as idle expiry (session_expired)", len(r.KilledAsExpired))
	t.row("session_expired for a session that did not end idle (any reason)", len(r.KilledAsExpired)+len(r.ExpiredNotIdle))
	t.row("recovered / genuine (the host's new session, alive on the server, not the lost one)",
		fmt.Sprintf("%d / %d", r.Genuine+len(r.NotGenuine), r.Genuine))
}

func (r Report) notificationRows(t *table) {
	n := r.Notify
	t.row("incidents / loss notifications", fmt.Sprintf("%d / %d", sum(r.Incidents), sum(r.LossNotes)))
	t.row("incidents lost within a storm window of the final crash (their summary not yet due; untold allowed)", sum(r.HeldAtTheEnd))
	t.row("recovered / recovered notifications", fmt.Sprintf("%d / %d", sum(r.Recovered), sum(r.RecoveredNotes)))
	t.row("incidents told earlier, recovered within a storm window of the final crash (their recovered notification may be untold)", sum(r.RecoveredAtTheEnd))
	t.row("notifications re-sent by a restarted daemon (at least once across kill -9)", sum(r.Resent))
	t.row("notifications per incident: most loss + outcome / incidents over 2 (beyond re-sends)",
		fmt.Sprintf("%d / %d", n.MaxPerIncident, len(n.OverTwo)))
	t.row("at-risk notifications / sessions warned / warned more than once",
		fmt.Sprintf("%d / %d / %d", n.AtRisk, n.AtRiskSessions, len(n.AtRiskRepeated)))
	t.row("at-risk shown once the session's end was journaled", n.AtRiskAfterEnd)
	t.row("healing-failed notifications / incidents told more than once / with no incident open",
		fmt.Sprintf("%d / %d / %d", n.HealFailed, len(n.HealFailedRepeated), len(n.HealFailedOutside)))
	t.row("reminders / beyond one per reminder interval", fmt.Sprintf("%d / %d", n.Reminders, len(n.RemindersOver)))
	t.row("storm summaries (incidents they stand for)", fmt.Sprintf("%d (%d)", n.Summaries, n.SummaryCovers))
	t.row("at-risk or healing-failed notifications about nothing journaled", len(n.Unmatched))
	t.row("other notifications (a shape the soak does not know)", r.OtherNotes)
}

func (r Report) identityRows(t *table) {
	id := r.Identity
	t.row("host sessions whose identity came from the beacon / the proxy / inferred / not said",
		fmt.Sprintf("%d / %d / %d / %d", id.Beacon, id.Proxy, id.Inferred, id.Unsaid))
	t.row("host sessions inferred while the host's live beacon named them", len(id.InferredWhileBeacon))
}

func (r Report) hostRows(t *table) {
	t.row("kept-warm sessions that expired", len(r.KeptWarmExpired))
	t.row("dead hosts' sessions kept alive", len(r.DeadHostAlive))
	t.row("log lines journaled twice after a kill -9", len(r.Replayed))
}

// proxyRows: the unpatched client's calls through the proxies.
func (r Report) proxyRows(t *table) {
	f := r.Proxy
	t.row("calls through the proxy / failed / failed while their server was down or cut by a kill -9 / of those, cut by a kill of the daemon / cut by a kill of the proxy process",
		fmt.Sprintf("%d / %d / %d / %d / %d", f.Calls, f.Failed, f.Excused, f.Cut, f.ProxyCut))
	t.row("of those calls, the Python SDK client's", f.Python)
	t.row("calls through the proxy failed otherwise (a kill -9 of the daemon, and the restarts of both under the supervisors that hold their sockets, included)", len(f.FailedUp))
	t.row("successful calls through the proxy under way while the daemon restarted / longest", fmt.Sprintf("%d / %s", f.Waited, f.WaitedMax.Round(time.Millisecond)))
	t.row("calls executed twice / successes never executed", fmt.Sprintf("%d / %d", len(f.RanTwice), len(f.NotRun)))
	t.row("losses the proxy met and healed on the host's call / longest such call", fmt.Sprintf("%d / %s", f.Recovered, f.TookMax))
	t.row("upstream sessions the proxy kept warm that expired", len(f.KeptWarmExpired))
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
