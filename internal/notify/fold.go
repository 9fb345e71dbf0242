package notify

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// When many sessions end at once (the host crashed, the machine woke), a
// bubble per server is a storm nobody reads. Bubbles of one kind that come
// within stormWindow of the first are one storm: the first stormSolo go out
// at once, the rest wait for the window's end and go out as one summary.
// The journal still has every event; notifications are only a view.
const (
	stormWindow = 10 * time.Second
	stormSolo   = 2
	// summaryLines caps a summary's body: the names are all in its title.
	summaryLines = 3
)

// Summary titles read "MCP watchdog: N more servers <what>: a, b, c", with
// <what> one of these; SummaryTitle writes and ParseSummary reads them.
const summaryPrefix = "MCP watchdog: "

// What a summary Message is about, as journaled when it was shown. Its
// Server is empty: the servers are named in its title.
const (
	AboutLostSummary       = "lost_summary"
	AboutRecoveredSummary  = "recovered_summary"
	AboutHealFailedSummary = "heal_failed_summary"
)

// foldKind is a kind of bubble that folds: its About, what its summary
// says the servers did, and the summary's About.
type foldKind struct{ about, what, summary string }

// foldKinds lists the kinds of bubble that fold, in the order their
// summaries go out.
func foldKinds() []foldKind {
	return []foldKind{
		{AboutLost, "lost their sessions", AboutLostSummary},
		{AboutHealFailed, "failed to heal", AboutHealFailedSummary},
		{AboutRecovered, "recovered", AboutRecoveredSummary},
	}
}

// held is a bubble waiting for its storm's summary, with the incident it
// was about (nil for a recovery, or a failure outside an incident): it is
// still news only while that is still the server's incident.
type held struct {
	msg Message
	inc *incident
}

// fold is one kind's storm.
type fold struct {
	open  bool      // a storm is open
	start time.Time // its first bubble
	shown int       // bubbles already let out alone
	held  []held
}

// hold keeps h, replacing what was held for the same server: one bubble
// per server.
func (f *fold) hold(h held) {
	for i := range f.held {
		if f.held[i].msg.Server == h.msg.Server {
			f.held[i] = h
			return
		}
	}
	f.held = append(f.held, h)
}

// due reports when f's summary is due, if it holds anything.
func (f *fold) due(window time.Duration) (time.Time, bool) {
	if len(f.held) == 0 {
		return time.Time{}, false
	}
	return f.start.Add(window), true
}

// SummaryTitle is the title of a summary of a kind of bubble (About: lost,
// recovered or heal_failed) for the servers named, in order. Names are
// joined by ", ": a server name holding ", " would not read back.
func SummaryTitle(about string, servers []string) string {
	for _, k := range foldKinds() {
		if k.about == about {
			return fmt.Sprintf("%s%d more servers %s: %s", summaryPrefix, len(servers), k.what, strings.Join(servers, ", "))
		}
	}
	return ""
}

// ParseSummary reads a summary title back: what kind of bubble it folds
// (lost, recovered or heal_failed) and the servers it names. ok is false
// for any other title.
func ParseSummary(title string) (about string, servers []string, ok bool) {
	rest, ok := strings.CutPrefix(title, summaryPrefix)
	if !ok {
		return "", nil, false
	}
	count, rest, ok := strings.Cut(rest, " more servers ")
	n, err := strconv.Atoi(count)
	if !ok || err != nil {
		return "", nil, false
	}
	for _, k := range foldKinds() {
		if names, found := strings.CutPrefix(rest, k.what+": "); found {
			servers = strings.Split(names, ", ")
			if len(servers) != n {
				return "", nil, false
			}
			return k.about, servers, true
		}
	}
	return "", nil, false
}

// summarize tells msgs (all of one kind) in one bubble; a single one goes
// out as itself. The body keeps their distinct details, the first few.
func summarize(k foldKind, msgs []Message) []Message {
	if len(msgs) < 2 {
		return msgs
	}
	servers := make([]string, len(msgs))
	var details []string
	for i, m := range msgs {
		servers[i] = m.Server
		if m.Body != "" && !slices.Contains(details, m.Body) {
			details = append(details, m.Body)
		}
	}
	if len(details) > summaryLines {
		details = append(details[:summaryLines], fmt.Sprintf("…and %d more.", len(details)-summaryLines))
	}
	return []Message{{Title: SummaryTitle(k.about, servers), Body: strings.Join(details, "\n"), About: k.summary}}
}

// admit says whether m goes out now, or waits (held) for its storm's
// summary. Kinds that do not fold always go out.
func (s *state) admit(m Message, now time.Time) bool {
	f := s.folds[m.About]
	if f == nil {
		return true
	}
	if !f.open {
		f.open, f.start, f.shown = true, now, 0
	}
	if f.shown < s.solo {
		f.shown++
		return true
	}
	f.hold(held{msg: m, inc: s.incidents[m.Server]})
	return false
}

// flush ends the storms whose window has passed by now (every storm when
// all) and returns their summaries; when quiet, what they held is dropped
// unsaid and its incidents wait for their reminder.
func (s *state) flush(now time.Time, quiet, all bool) []Message {
	var out []Message
	for _, k := range foldKinds() {
		f := s.folds[k.about]
		if !f.open || (!all && now.Sub(f.start) < s.window) {
			continue
		}
		var msgs []Message
		for _, h := range f.held {
			if s.incidents[h.msg.Server] == h.inc { // still the server's news
				msgs = append(msgs, h.msg)
			}
		}
		*f = fold{}
		if quiet {
			continue
		}
		for _, m := range msgs {
			if inc := s.incidents[m.Server]; inc != nil {
				inc.told, inc.lastSent = true, now
			}
		}
		out = append(out, summarize(k, msgs)...)
	}
	return out
}

// nextFlush reports when the earliest held summary is due.
func (s *state) nextFlush() (time.Time, bool) {
	var next time.Time
	for _, f := range s.folds {
		if due, ok := f.due(s.window); ok && (next.IsZero() || due.Before(next)) {
			next = due
		}
	}
	return next, !next.IsZero()
}
