package soak

import (
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// Bounds the evaluation holds the watchdog to.
const (
	// DetectWithin: every expiry and loss is in the journal this soon after
	// it happened (or after the watchdog was back, when it happened while
	// the watchdog was down).
	DetectWithin = time.Second
	// JournalFlushWithin: once an injected journal write failure ends, what
	// the daemon held meanwhile is in the journal this much later than
	// DetectWithin allows (its retry backoff).
	JournalFlushWithin = 2 * time.Second
	// minVisible: a session that existed for less than this while the
	// watchdog ran was never seeable in a store snapshot; it is counted
	// apart, not as missed.
	minVisible = 300 * time.Millisecond
	// claimSlack: how far a journal claim may run ahead of the soak reading
	// the server's own line about the same end (pipes and polling).
	claimSlack = 300 * time.Millisecond
	// sweepSlack: how late after its idle timeout a server may end a
	// session (the TypeScript servers sweep every quarter timeout).
	sweepSlack = 1500 * time.Millisecond
	// beaconSlack: how long after a live beacon names a session the daemon
	// may still go on inferring it (until its next look at the beacon).
	beaconSlack = time.Second
)

// Report is the soak's figures; Problems lists what broke a promise.
type Report struct {
	Sessions    int
	Ended       int            // by the servers, all reasons
	EndedBy     map[string]int // reason → count
	Unseeable   int            // lived < minVisible while the watchdog ran
	AtTheEnd    int            // ended undetected within DetectWithin of the daemon's final stop
	Detected    int
	Missed      []string
	Late        []string
	LatencyP50  time.Duration
	LatencyP99  time.Duration
	LatencyMax  time.Duration
	FalseAlarms []string
	// ExpiredNotIdle: session_expired for a session the server ended for
	// a reason other than idleness or a kill (right that it ended, wrong
	// why).
	ExpiredNotIdle []string
	// KilledAsExpired: session_expired ("expired after idle") for a
	// session the truth says a server kill ended: a wrong word.
	KilledAsExpired []string
	Incidents       map[string]int
	// HeldAtTheEnd: incidents whose loss was journaled within a storm's
	// window of the daemon's final crash: their storm's summary was not
	// due yet, and only a next start would show it. Not counted untold.
	HeldAtTheEnd map[string]int
	// RecoveredAtTheEnd: incidents told before that window whose recovery
	// was journaled within it; their recovered notification may be untold.
	RecoveredAtTheEnd map[string]int
	Recovered         map[string]int
	// Genuine counts the recovered records whose new session is real: the
	// host's, opened after the loss, alive on its server at the claim, and
	// not the lost one (nor other than the new_session the record names).
	Genuine    int
	NotGenuine []string
	// Resent: notifications a restarted daemon showed for an event its
	// killed predecessor journaled, by server and "lost" or "recovered".
	// The kill may have fallen after the showing and before its record, so
	// each may repeat one already shown: at least once, not exactly once.
	Resent          map[string]int
	LossNotes       map[string]int
	FoldedLoss      map[string]int // losses told in storm summaries, per server
	RecoveredNotes  map[string]int
	OtherNotes      int // notifications of no shape the soak knows
	Notify          NoteFigures
	Identity        IdentityFigures
	JournalFail     FaultFigures
	KeptWarmExpired []string
	DeadHostAlive   []string
	Replayed        []string // log-derived events journaled twice (a restart replayed a line)
	Proxy           ProxyFigures
	LateHosts       LateFigures
	Problems        []string
}

// Evaluate compares the journal and the notifications with the truth.
func Evaluate(in Input) Report {
	r := Report{EndedBy: map[string]int{}}
	all := in.sessions()
	idx := indexJournal(in.Journal)
	r.Sessions = len(all)
	r.detection(in, all)
	r.falseAlarms(in, all)
	r.notifications(in, idx)
	r.perIncident(in, idx)
	r.recoveries(in, all, idx)
	r.identity(in, all)
	r.journalWarnings(in)
	r.keptWarm(in, all)
	r.deadHosts(in, all)
	r.replays(in)
	r.proxiedCalls(in)
	r.proxyKeptWarm(in, all)
	r.lateHosts(in)
	r.problems()
	return r
}

// add records a broken promise when cond holds.
func (r *Report) add(cond bool, format string, args ...any) {
	if cond {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// list adds a problem naming each of found, if any: "<n> <what>: [...]".
func (r *Report) list(found []string, what string) {
	r.add(len(found) > 0, "%d %s: %v", len(found), what, found)
}

func (r *Report) problems() {
	r.list(r.Missed, "expiries/losses never journaled")
	r.add(len(r.Late) > 0, "%d detected later than %s: %v", len(r.Late), DetectWithin, r.Late)
	r.list(r.FalseAlarms, "false session_lost/session_expired")
	r.list(r.KilledAsExpired, "sessions ended by a server kill journaled as idle expiry")
	r.list(r.ExpiredNotIdle, "session_expired for sessions that ended for another reason than idleness")
	r.list(r.Identity.InferredWhileBeacon, "host sessions inferred while the host's live beacon named them")
	r.add(len(r.NotGenuine) > 0, "%d recovered of %d not genuine: %v", len(r.NotGenuine), r.Genuine+len(r.NotGenuine), r.NotGenuine)
	r.outcomeProblems()
	r.notifyProblems()
	f := r.JournalFail
	r.list(f.Lost, "events lost across an injected journal write failure")
	r.list(f.Unwarned, "journal write failures with no warning after them")
	r.list(r.KeptWarmExpired, "kept-warm sessions expired")
	r.list(r.Replayed, "log lines journaled twice")
	r.list(r.DeadHostAlive, "sessions of dead hosts kept alive")
	r.proxyProblems()
	r.lateProblems()
}

func describe(s *session) string {
	return fmt.Sprintf("%s %s (%s, %s, %s→%s)", s.server, mask.ID(s.id), s.client, s.reason,
		s.start.Format("15:04:05.000"), fmtTime(s.end))
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "alive"
	}
	return t.Format("15:04:05.000")
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// downNote says when the watchdog was down (killed -9, restarting) during
// [from, to]: what a reader of a failure needs first.
func downNote(down []Span, from, to time.Time) string {
	if d, ok := overlapping(down, from, to); ok {
		return fmt.Sprintf(" [the watchdog was down %s→%s]", d.From.Format("15:04:05.000"), fmtTime(d.To))
	}
	return ""
}

// overlapping is the first of spans that shares some time with [from, to].
func overlapping(spans []Span, from, to time.Time) (Span, bool) {
	for _, s := range spans {
		if s.From.Before(to) && (s.To.IsZero() || s.To.After(from)) {
			return s, true
		}
	}
	return Span{}, false
}
