package soak

import (
	"fmt"
	"slices"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// detection: every session a server ended is journaled (its expiry, end
// or loss), within DetectWithin of the end, or of the daemon's return, or
// of the end of a journal write failure plus the flush.
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
		ref, allow, held := detectRef(in, s.end)
		seen, ok := firstEnd(in.Journal, s)
		if !ok && !in.Stopped.IsZero() && s.end.After(in.Stopped.Add(-DetectWithin)) {
			r.AtTheEnd++ // the daemon was stopped before its second was up
			continue
		}
		if held {
			r.JournalFail.Events++
		}
		switch {
		case !ok && held:
			r.JournalFail.Lost = append(r.JournalFail.Lost, describe(s))
			fallthrough
		case !ok:
			r.Missed = append(r.Missed, describe(s))
			continue
		case seen.At.Sub(ref) > allow:
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

// detectRef is when the end of a session ended at end could first be
// journaled, and how long after that it may take: the end itself, or the
// daemon's return when it was down, or the end of a journal write failure
// that the detection fell into (held: the daemon held it meanwhile).
func detectRef(in Input, end time.Time) (ref time.Time, allow time.Duration, held bool) {
	ref, allow = end, DetectWithin
	for _, f := range faultGroups(in.JournalFault) {
		if f.To.IsZero() || end.Before(f.From.Add(-DetectWithin)) || end.After(f.To) {
			continue
		}
		ref, allow, held = maxTime(ref, f.To), DetectWithin+JournalFlushWithin, true
	}
	return runningRef(in.WatchdogDown, ref, allow), allow, held
}

// runningRef shifts ref by the daemon's downtime within the allowance it
// has from ref: the bound is on time the daemon ran. Time it was down at
// ref counts from its return; a kill -9 a moment after ref counts the
// moments before the kill and the time after the return.
func runningRef(down []Span, ref time.Time, allow time.Duration) time.Time {
	for _, d := range down { // in the order they happened
		switch {
		case d.To.IsZero() || !d.To.After(ref) || d.From.After(ref.Add(allow)):
		case !d.From.After(ref):
			ref = d.To
		default:
			ref = ref.Add(d.To.Sub(d.From))
		}
	}
	return ref
}

// faultGroups joins journal write failures that follow one another closer
// than the flush bound: what the first held may be held on by the next.
func faultGroups(spans []Span) []Span {
	var out []Span
	for _, s := range spans {
		if n := len(out); n > 0 && !out[n-1].To.IsZero() && !s.From.After(out[n-1].To.Add(JournalFlushWithin+DetectWithin)) {
			out[n-1].To = s.To
			continue
		}
		out = append(out, s)
	}
	return out
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

func endKinds() []health.EventKind {
	return []health.EventKind{health.EvSessionExpired, health.EvSessionEnded, health.EvSessionLost}
}

func firstEnd(j []Seen, s *session) (Seen, bool) {
	m := mask.ID(s.id)
	for _, seen := range j {
		if seen.Rec.Server == s.server && seen.Rec.Session == m && slices.Contains(endKinds(), seen.Rec.Kind) && !seen.At.Before(s.start) {
			return seen, true
		}
	}
	return Seen{}, false
}

// falseAlarms: a session_lost or session_expired for a session the server
// had not ended by then. Of the true ones, a session_expired ("expired
// after idle") for a session a server kill ended names the wrong cause.
func (r *Report) falseAlarms(in Input, all []*session) {
	byMask := sessionsByMask(all)
	for _, seen := range in.Journal {
		k := seen.Rec.Kind
		if k != health.EvSessionLost && k != health.EvSessionExpired {
			continue
		}
		// died, not end: a killed server's sessions are gone from the kill,
		// and its successor empties the store before it says it listens.
		s := byMask[in.upstream(seen.Rec.Server)+"\x00"+seen.Rec.Session]
		if s == nil || s.died.IsZero() || s.died.After(seen.At.Add(claimSlack)) {
			r.FalseAlarms = append(r.FalseAlarms, fmt.Sprintf("%s %s %s at %s: %s", k, seen.Rec.Server, seen.Rec.Session,
				seen.At.Format("15:04:05.000"), seen.Rec.Detail))
			continue
		}
		if k != health.EvSessionExpired || s.reason == "idle" {
			continue
		}
		what := fmt.Sprintf("%s at %s: %s", describe(s), fmtTime(seen.At), seen.Rec.Detail)
		if s.reason == "killed" {
			r.KilledAsExpired = append(r.KilledAsExpired, what)
			continue
		}
		r.ExpiredNotIdle = append(r.ExpiredNotIdle, what)
	}
}

// sessionsByMask indexes the truth by server and masked id, as the
// journal names sessions.
func sessionsByMask(all []*session) map[string]*session {
	byMask := map[string]*session{}
	for _, s := range all {
		byMask[s.server+"\x00"+mask.ID(s.id)] = s
	}
	return byMask
}

// heldBy is the journal write failure a record read at at may have been
// held back by (decided during the span, written after it).
func heldBy(in Input, at time.Time) (Span, bool) {
	for _, f := range faultGroups(in.JournalFault) {
		if !at.Before(f.From) && (f.To.IsZero() || !at.After(f.To.Add(JournalFlushWithin+DetectWithin))) {
			return f, true
		}
	}
	return Span{}, false
}
