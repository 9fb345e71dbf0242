package soak

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// Bounds the evaluation holds the watchdog to.
const (
	// DetectWithin: every expiry and loss is in the journal this soon after
	// it happened (or after the watchdog was back, when it happened while
	// the watchdog was down).
	DetectWithin = time.Second
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
)

// Report is the soak's figures; Problems lists what broke a promise.
type Report struct {
	Sessions       int
	Ended          int            // by the servers, all reasons
	EndedBy        map[string]int // reason → count
	Unseeable      int            // lived < minVisible while the watchdog ran
	AtTheEnd       int            // ended undetected within DetectWithin of the daemon's final stop
	Detected       int
	Missed         []string
	Late           []string
	LatencyP50     time.Duration
	LatencyP99     time.Duration
	LatencyMax     time.Duration
	FalseAlarms    []string
	ExpiredNotIdle int // session_expired for a session a kill ended (right that it ended, wrong why)
	Incidents      map[string]int
	Recovered      map[string]int
	// Resent: notifications a restarted daemon showed for an event its
	// killed predecessor journaled, by server and "lost" or "recovered".
	// The kill may have fallen after the showing and before its record, so
	// each may repeat one already shown: at least once, not exactly once.
	Resent          map[string]int
	LossNotes       map[string]int
	RecoveredNotes  map[string]int
	OtherNotes      int
	KeptWarmExpired []string
	DeadHostAlive   []string
	Replayed        []string // log-derived events journaled twice (a restart replayed a line)
	Problems        []string
}

// Evaluate compares the journal and the notifications with the truth.
func Evaluate(in Input) Report {
	r := Report{EndedBy: map[string]int{}}
	all := in.sessions()
	r.Sessions = len(all)
	r.detection(in, all)
	r.falseAlarms(in, all)
	r.notifications(in)
	r.keptWarm(in, all)
	r.deadHosts(in, all)
	r.replays(in)
	r.problems()
	return r
}

func (r *Report) detection(in Input, all []*session) {
	var lat []time.Duration
	for _, s := range all {
		if s.end.IsZero() {
			continue
		}
		r.Ended++
		r.EndedBy[s.reason]++
		if visible(s, in.WatchdogDown) < minVisible {
			r.Unseeable++
			continue
		}
		ref := s.end
		for _, down := range in.WatchdogDown {
			if down.contains(s.end) && !down.To.IsZero() {
				ref = down.To
			}
		}
		seen, ok := firstEnd(in.Journal, s)
		switch {
		case !ok && !in.Stopped.IsZero() && s.end.After(in.Stopped.Add(-DetectWithin)):
			r.AtTheEnd++ // the daemon was stopped before its second was up
			continue
		case !ok:
			r.Missed = append(r.Missed, describe(s))
			continue
		case seen.At.Sub(ref) > DetectWithin:
			r.Late = append(r.Late, fmt.Sprintf("%s: %s after", describe(s), seen.At.Sub(ref).Round(time.Millisecond)))
		}
		r.Detected++
		lat = append(lat, max(seen.At.Sub(ref), 0))
	}
	slices.Sort(lat)
	if n := len(lat); n > 0 {
		r.LatencyP50, r.LatencyP99, r.LatencyMax = lat[n/2], lat[min(n-1, n*99/100)], lat[n-1]
	}
}

// visible is how long s existed while the watchdog ran.
func visible(s *session, down []Span) time.Duration {
	life := s.died.Sub(s.start) // a killed server's session could be seen only until the kill
	for _, d := range down {
		to := d.To
		if to.IsZero() {
			to = s.died
		}
		from, until := maxTime(d.From, s.start), minTime(to, s.died)
		if until.After(from) {
			life -= until.Sub(from)
		}
	}
	return life
}

var endKinds = []health.EventKind{health.EvSessionExpired, health.EvSessionEnded, health.EvSessionLost}

func firstEnd(j []Seen, s *session) (Seen, bool) {
	m := mask.ID(s.id)
	for _, seen := range j {
		if seen.Rec.Server == s.server && seen.Rec.Session == m && slices.Contains(endKinds, seen.Rec.Kind) && !seen.At.Before(s.start) {
			return seen, true
		}
	}
	return Seen{}, false
}

// falseAlarms: a session_lost or session_expired for a session the server
// had not ended by then.
func (r *Report) falseAlarms(in Input, all []*session) {
	byMask := map[string]*session{}
	for _, s := range all {
		byMask[s.server+"\x00"+mask.ID(s.id)] = s
	}
	for _, seen := range in.Journal {
		k := seen.Rec.Kind
		if k != health.EvSessionLost && k != health.EvSessionExpired {
			continue
		}
		// died, not end: a killed server's sessions are gone from the kill,
		// and its successor empties the store before it says it listens.
		s := byMask[seen.Rec.Server+"\x00"+seen.Rec.Session]
		if s == nil || s.died.IsZero() || s.died.After(seen.At.Add(claimSlack)) {
			r.FalseAlarms = append(r.FalseAlarms, fmt.Sprintf("%s %s %s at %s: %s", k, seen.Rec.Server, seen.Rec.Session,
				seen.At.Format("15:04:05.000"), seen.Rec.Detail))
			continue
		}
		if k == health.EvSessionExpired && s.reason != "idle" {
			r.ExpiredNotIdle++
		}
	}
}

func (r *Report) notifications(in Input) {
	r.Resent = resent(in.Journal)
	r.Incidents, r.Recovered = map[string]int{}, map[string]int{}
	r.LossNotes, r.RecoveredNotes = map[string]int{}, map[string]int{}
	for _, seen := range in.Journal {
		switch seen.Rec.Kind {
		case health.EvSessionLost:
			if seen.Rec.Incident {
				r.Incidents[seen.Rec.Server]++
			}
		case health.EvRecovered:
			r.Recovered[seen.Rec.Server]++
		}
	}
	for _, n := range in.Notes {
		server, kind := noteKind(n.Title, in.Servers)
		switch kind {
		case "lost":
			r.LossNotes[server]++
		case "recovered":
			r.RecoveredNotes[server]++
		default:
			r.OtherNotes++
		}
	}
}

// resent counts "notified" records of a run for an event a previous run
// journaled: what a restart showed because its predecessor had not
// recorded showing it.
func resent(j []Seen) map[string]int {
	out := map[string]int{}
	lastStart := -1
	lastEvent := map[string]int{} // server+about → index of its latest event
	for i, s := range j {
		switch s.Rec.Kind {
		case health.EvStarted:
			lastStart = i
		case health.EvSessionLost:
			if s.Rec.Incident {
				lastEvent[s.Rec.Server+" lost"] = i
			}
		case health.EvRecovered:
			lastEvent[s.Rec.Server+" recovered"] = i
		case health.EvNotified:
			key := s.Rec.Server + " " + s.Rec.About
			if ev, ok := lastEvent[key]; ok && ev < lastStart {
				out[key]++
			}
		}
	}
	return out
}

// noteKind reads a notification title the way internal/notify writes them.
func noteKind(title string, servers map[string]ServerInfo) (server, kind string) {
	for name := range servers {
		switch {
		case strings.HasPrefix(title, name+": session lost"):
			return name, "lost"
		case strings.HasPrefix(title, name+" recovered"):
			return name, "recovered"
		}
	}
	return "", "other"
}

// keptWarm: a host session on a keep-warm server that the server ended for
// idleness while the host that opened it still ran and still used it (no
// newer session of the host on that server).
func (r *Report) keptWarm(in Input, all []*session) {
	for _, s := range all {
		info := in.Servers[s.server]
		if s.reason != "idle" || !info.KeepWarm || s.client != in.HostClient {
			continue
		}
		run, ok := hostRun(in.Hosts, s.start)
		if !ok || !run.contains(s.end) || superseded(all, s) {
			continue
		}
		r.KeptWarmExpired = append(r.KeptWarmExpired, describe(s)+downNote(in.WatchdogDown, s.end.Add(-info.Timeout), s.end))
	}
}

func hostRun(hosts []Span, t time.Time) (Span, bool) {
	for _, h := range hosts {
		if h.contains(t) {
			return h, true
		}
	}
	return Span{}, false
}

func superseded(all []*session, s *session) bool {
	for _, o := range all {
		if o != s && o.server == s.server && o.client == s.client && o.start.After(s.start) && o.start.Before(s.end) {
			return true
		}
	}
	return false
}

// deadHosts: a session of a killed host that outlived its idle timeout after
// the kill (something kept it alive), or that got a keep-warm ping after it.
func (r *Report) deadHosts(in Input, all []*session) {
	for _, s := range all {
		if s.client != in.HostClient {
			continue
		}
		run, ok := hostRun(in.Hosts, s.start)
		if !ok || run.To.IsZero() || (!s.end.IsZero() && s.end.Before(run.To)) {
			continue
		}
		deadline := run.To.Add(in.Servers[s.server].Timeout + sweepSlack)
		end := s.died
		if end.IsZero() {
			end = in.End
		}
		pinged := pingedAfter(in.Journal, s, run.To)
		if end.After(deadline) || pinged {
			r.DeadHostAlive = append(r.DeadHostAlive, fmt.Sprintf("%s: host killed at %s, session ended %s (pinged after: %v)",
				describe(s), run.To.Format("15:04:05.000"), fmtTime(s.end), pinged))
		}
	}
}

// pingedAfter: a keep-warm ping of s sent after the moment given. A ping is
// journaled when its answer arrives, so its sending is the moment it was
// read less its took_ms and pingJournalSlack (the daemon's loop and the
// soak's journal polling).
func pingedAfter(j []Seen, s *session, after time.Time) bool {
	const pingJournalSlack = 250 * time.Millisecond
	m := mask.ID(s.id)
	for _, seen := range j {
		if seen.Rec.Kind != health.EvKeepWarm || seen.Rec.Server != s.server || seen.Rec.Session != m {
			continue
		}
		sent := seen.At.Add(-seen.Rec.Took - pingJournalSlack)
		if sent.After(after) {
			return true
		}
	}
	return false
}

// replays: every log-derived event names the log position it came from; a
// position journaled twice for the same kind means a restart replayed a
// line it had already handled.
func (r *Report) replays(in Input) {
	seen := map[string]bool{}
	for _, s := range in.Journal {
		pos := s.Rec.Log
		if pos.File == "" {
			continue
		}
		key := fmt.Sprint(s.Rec.Kind, pos.File, pos.Fingerprint, pos.Offset)
		if seen[key] {
			r.Replayed = append(r.Replayed, fmt.Sprintf("%s %s at %d", s.Rec.Kind, pos.File, pos.Offset))
		}
		seen[key] = true
	}
}

func (r *Report) problems() {
	add := func(cond bool, format string, args ...any) {
		if cond {
			r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
		}
	}
	add(len(r.Missed) > 0, "%d expiries/losses never journaled: %v", len(r.Missed), r.Missed)
	add(len(r.Late) > 0, "%d detected later than %s: %v", len(r.Late), DetectWithin, r.Late)
	add(len(r.FalseAlarms) > 0, "%d false session_lost/session_expired: %v", len(r.FalseAlarms), r.FalseAlarms)
	for server, n := range r.Incidents {
		got, extra := r.LossNotes[server], r.Resent[server+" lost"]
		add(got < n || got > n+extra, "%s: %d incidents but %d loss notifications (%d re-sent after a kill -9)", server, n, got, extra)
	}
	for server, n := range r.LossNotes {
		add(r.Incidents[server] == 0 && n > 0, "%s: %d loss notifications without an incident", server, n)
	}
	for server, n := range r.Recovered {
		got, extra := r.RecoveredNotes[server], r.Resent[server+" recovered"]
		add(got < n || got > n+extra, "%s: %d recoveries but %d recovered notifications (%d re-sent after a kill -9)", server, n, got, extra)
	}
	add(len(r.KeptWarmExpired) > 0, "%d kept-warm sessions expired: %v", len(r.KeptWarmExpired), r.KeptWarmExpired)
	add(len(r.Replayed) > 0, "%d log lines journaled twice: %v", len(r.Replayed), r.Replayed)
	add(len(r.DeadHostAlive) > 0, "%d sessions of dead hosts kept alive: %v", len(r.DeadHostAlive), r.DeadHostAlive)
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
	for _, d := range down {
		if d.From.Before(to) && (d.To.IsZero() || d.To.After(from)) {
			return fmt.Sprintf(" [the watchdog was down %s→%s]", d.From.Format("15:04:05.000"), fmtTime(d.To))
		}
	}
	return ""
}
