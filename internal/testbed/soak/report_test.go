package soak

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
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

// The report shows every figure the judgements give, under its own name.
func TestReportMarkdownShowsTheFigures(t *testing.T) {
	r := Report{Genuine: 7, NotGenuine: []string{"x"}, KilledAsExpired: []string{"k1", "k2"},
		Notify: NoteFigures{MaxPerIncident: 2, OverTwo: []string{"o"}, AtRisk: 9, AtRiskSessions: 8, AtRiskRepeated: []string{"a"},
			AtRiskAfterEnd: 4, HealFailed: 6, HealFailedRepeated: []string{"h"}, HealFailedOutside: []string{"h1", "h2"},
			Reminders: 3, Summaries: 2, SummaryCovers: 5},
		Identity:    IdentityFigures{Beacon: 11, Proxy: 14, Inferred: 12, Unsaid: 13, InferredWhileBeacon: []string{"i"}},
		JournalFail: FaultFigures{Spans: 21, Events: 22, Lost: []string{"l"}, Warned: 20},
		Proxy: ProxyFigures{Calls: 31, Failed: 5, Excused: 3, Cut: 1, ProxyCut: 2, FailedUp: []string{"f1", "f2"}, RanTwice: []string{"t"},
			NotRun: []string{"n1", "n2", "n3"}, Recovered: 9, TookMax: 32 * time.Millisecond, KeptWarmExpired: []string{"w"}},
		LateHosts: LateFigures{Hosts: 7, StartedDown: 6, Answered: 4, Connected: 6, Calls: 18, Worked: 16, Excused: 1, Failed: []string{"l"}}}
	text := r.Markdown(time.Minute, 1, "none")
	for _, want := range []string{
		"| recovered / genuine (the host's new session, alive on the server, not the lost one) | 8 / 7 |",
		"| killed sessions journaled as idle expiry (session_expired) | 2 |",
		"| notifications per incident: most loss + outcome / incidents over 2 (beyond re-sends) | 2 / 1 |",
		"| at-risk notifications / sessions warned / warned more than once | 9 / 8 / 1 |",
		"| at-risk shown once the session's end was journaled | 4 |",
		"| healing-failed notifications / incidents told more than once / with no incident open | 6 / 1 / 2 |",
		"| reminders / beyond one per reminder interval | 3 / 0 |",
		"| storm summaries (incidents they stand for) | 2 (5) |",
		"| host sessions whose identity came from the beacon / the proxy / inferred / not said | 11 / 14 / 12 / 13 |",
		"| host sessions inferred while the host's live beacon named them | 1 |",
		"| journal write failures injected / followed by a warning about the journal | 21 / 20 |",
		"| expiries and losses during a journal write failure / lost | 22 / 1 |",
		"| calls through the proxy / failed / failed while their server was down or cut by a kill -9 / of those, cut by a kill of the daemon / cut by a kill of the proxy process | 31 / 5 / 3 / 1 / 2 |",
		"| calls through the proxy failed otherwise (a kill -9 of the daemon, and the restarts of both under the supervisors that hold their sockets, included) | 2 |",
		"| calls executed twice / successes never executed | 1 / 3 |",
		"| losses the proxy met and healed on the host's call / longest such call | 9 / 32ms |",
		"| upstream sessions the proxy kept warm that expired | 1 |",
		"| hosts started through the proxy while their server was down / answered before it was up (the last-known server) / waited for it | 6 / 4 / 2 |",
		"| their starts (all, started down or not) / connected; their calls / worked (run once, on their server) / cut by a kill of the proxy process or of their server again / failed | 7 / 6; 18 / 16 / 1 / 1 |",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
}
