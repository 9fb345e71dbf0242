package soak

import (
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

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
		pinged := pingedAfter(in, s, run.To)
		if end.After(deadline) || pinged {
			r.DeadHostAlive = append(r.DeadHostAlive, fmt.Sprintf("%s: host killed at %s, session ended %s (pinged after: %v)",
				describe(s), run.To.Format("15:04:05.000"), fmtTime(s.end), pinged))
		}
	}
}

// pingedAfter: a keep-warm ping of s sent after the moment given. A ping is
// journaled when its answer arrives, so its sending is the moment it was
// read less its took_ms and pingJournalSlack (the daemon's loop and the
// soak's journal polling); a ping journaled once a journal write failure
// ended may have been sent as early as the failure's start, and one
// journaled as a restarted daemon became ready as early as the restart
// (it pings the beacon's sessions first, and journals the answers once it
// has read its journal back).
func pingedAfter(in Input, s *session, after time.Time) bool {
	const pingJournalSlack = 250 * time.Millisecond
	m := mask.ID(s.id)
	for _, seen := range in.Journal {
		if seen.Rec.Kind != health.EvKeepWarm || seen.Rec.Server != s.server || seen.Rec.Session != m {
			continue
		}
		sent := seen.At.Add(-took(seen.Rec) - pingJournalSlack)
		if f, held := heldBy(in, seen.At); held {
			sent = minTime(sent, f.From.Add(-took(seen.Rec)))
		}
		if down, ok := restartedBy(in, seen.At, pingJournalSlack); ok {
			sent = minTime(sent, down.From)
		}
		if sent.After(after) {
			return true
		}
	}
	return false
}

// restartedBy is the daemon restart whose span (kill to readiness, plus
// slack) holds at.
func restartedBy(in Input, at time.Time, slack time.Duration) (Span, bool) {
	for _, down := range in.WatchdogDown {
		if !at.Before(down.From) && !down.To.IsZero() && !at.After(down.To.Add(slack)) {
			return down, true
		}
	}
	return Span{}, false
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
