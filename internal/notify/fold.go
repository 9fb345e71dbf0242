package notify

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/durfmt"
)

// When many sessions end at once (the host crashed, the machine woke), a
// bubble per server is a storm nobody reads. Bubbles of one kind that come
// within stormWindow of the first are one storm: the first stormSolo go out
// at once, the rest wait for the window's end and go out as one summary.
// The journal still has every event; notifications are only a view.
//
// StormWindow is exported for the chaos soak's judge: a loss that close to
// the daemon's end may be waiting for its summary.
const StormWindow = 10 * time.Second

const (
	stormWindow = StormWindow
	stormSolo   = 2
	// summaryLines caps a summary's body: the names are all in its title.
	summaryLines = 3
)

// Summary titles read "MCP watchdog: N more <what>: a, b (2), c", with
// <what> one of these and N the bubbles folded (a server that had two
// incidents in the storm counts twice); SummaryTitle writes and
// ParseSummary reads them.
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
// legacy is how titles said <what> before summaries counted incidents
// (journals written then are still read back).
type foldKind struct{ about, what, summary, legacy string }

// foldKinds lists the kinds of bubble that fold, in the order their
// summaries go out.
func foldKinds() []foldKind {
	return []foldKind{
		{AboutLost, "sessions lost", AboutLostSummary, "servers lost their sessions"},
		{AboutHealFailed, "heals failed", AboutHealFailedSummary, "servers failed to heal"},
		{AboutRecovered, "sessions recovered", AboutRecoveredSummary, "servers recovered"},
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

// hold keeps h for the summary. Each bubble is one incident's (decide
// says each thing once per incident), so a server may be held twice.
func (f *fold) hold(h held) { f.held = append(f.held, h) }

// due reports when f's summary is due, if it holds anything.
func (f *fold) due(window time.Duration) (time.Time, bool) {
	if len(f.held) == 0 {
		return time.Time{}, false
	}
	return f.start.Add(window), true
}

// SummaryTitle is the title of a summary of a kind of bubble (About: lost,
// recovered or heal_failed), one per entry of servers, in order: a server
// named k > 1 times reads "name (k)". Names are joined by ", ": a server
// name holding ", " would not read back.
func SummaryTitle(about string, servers []string) string {
	for _, k := range foldKinds() {
		if k.about == about {
			return fmt.Sprintf("%s%d more %s: %s", summaryPrefix, len(servers), k.what, strings.Join(tally(servers), ", "))
		}
	}
	return ""
}

// tally names each server once, in order of first mention, with its count
// when above one.
func tally(servers []string) []string {
	var names []string
	count := map[string]int{}
	for _, s := range servers {
		if count[s] == 0 {
			names = append(names, s)
		}
		count[s]++
	}
	for i, name := range names {
		if count[name] > 1 {
			names[i] = fmt.Sprintf("%s (%d)", name, count[name])
		}
	}
	return names
}

// ParseSummary reads a summary title back: what kind of bubble it folds
// (lost, recovered or heal_failed) and the servers it names, one entry per
// bubble folded ("a (2)" is a twice), as SummaryTitle was given them. ok
// is false for any other title, or one whose counts do not add up.
func ParseSummary(title string) (about string, servers []string, ok bool) {
	rest, ok := strings.CutPrefix(title, summaryPrefix)
	if !ok {
		return "", nil, false
	}
	count, rest, ok := strings.Cut(rest, " more ")
	n, err := strconv.Atoi(count)
	if !ok || err != nil {
		return "", nil, false
	}
	if n < 1 || n > maxSummarized {
		return "", nil, false
	}
	for _, k := range foldKinds() {
		names, found := strings.CutPrefix(rest, k.what+": ")
		if !found {
			names, found = strings.CutPrefix(rest, k.legacy+": ")
		}
		if found {
			servers := untally(strings.Split(names, ", "), n)
			if len(servers) != n {
				return "", nil, false
			}
			return k.about, servers, true
		}
	}
	return "", nil, false
}

// maxSummarized bounds the count a title read back may claim: the
// journal it comes from is a file, and a count is an allocation.
const maxSummarized = 10000

// untally undoes tally: each name as many times as its count, stopping
// past limit.
func untally(parts []string, limit int) []string {
	var servers []string
	for _, p := range parts {
		if len(servers) > limit {
			break
		}
		name, k := p, 1
		if base, num, found := strings.Cut(p, " ("); found && strings.HasSuffix(num, ")") {
			if v, err := strconv.Atoi(strings.TrimSuffix(num, ")")); err == nil && v > 1 && v <= limit {
				name, k = base, v
			}
		}
		for range k {
			servers = append(servers, name)
		}
	}
	return servers
}

// summarize tells msgs (all of one kind) in one bubble; a single one goes
// out as itself. The body keeps their distinct details, the first few.
func summarize(k foldKind, msgs []Message) []Message {
	if len(msgs) < 2 {
		return msgs
	}
	servers := make([]string, len(msgs))
	var details, healed []string
	for i, m := range msgs {
		servers[i] = m.Server
		if m.Healed {
			healed = append(healed, m.Server)
		} else if m.Body != "" && !slices.Contains(details, m.Body) {
			details = append(details, m.Body)
		}
	}
	if len(details) > summaryLines {
		details = append(details[:summaryLines], fmt.Sprintf("…and %d more.", len(details)-summaryLines))
	}
	if len(healed) > 0 {
		details = append(details, "Since recovered: "+strings.Join(healed, ", ")+".")
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
	if f.shown < s.solo && !s.budget.over(now) {
		f.shown++
		return true
	}
	f.hold(held{msg: m, inc: s.incident(m.Server, m.Host)})
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
		msgs := s.stillNews(f.held)
		*f = fold{}
		if quiet {
			continue
		}
		for _, m := range msgs {
			if inc := s.incident(m.Server, m.Host); inc != nil {
				inc.told, inc.lastSent = true, now
			}
		}
		out = append(out, summarize(k, msgs)...)
	}
	return out
}

// stillNews is what of held is still worth telling: bubbles about the
// server's open incident, and losses whose incident recovered while held
// (told as recovered: every incident of a storm is named once).
func (s *state) stillNews(held []held) []Message {
	var out []Message
	for _, h := range held {
		switch {
		case s.incident(h.msg.Server, h.msg.Host) == h.inc:
			out = append(out, h.msg)
		case h.inc != nil && h.inc.healed:
			out = append(out, healedLoss(h.msg, h.inc.healedIn))
		}
	}
	return out
}

// heldUntold notes that a loss re-sent at a start waits for its storm's
// summary: the journal's replay took its incident for told, and a
// recovery before the summary would then be told alone while the loss is
// dropped from it. Untold, the recovery makes it a loss "since recovered".
func (s *state) heldUntold(m Message) {
	if inc := s.incident(m.Server, m.Host); inc != nil && m.About == AboutLost && !m.Healed {
		inc.told = false
	}
}

// lostSuffix ends the title of a loss bubble, after its subject.
const lostSuffix = ": session lost — the watchdog is healing it"

// HealedLossSuffix ends the title of a loss bubble that also tells its
// recovery (the loss was held for a storm's summary and healed meanwhile).
const HealedLossSuffix = ": session lost — since recovered"

// healedLoss rewrites a held loss bubble for a loss that has since
// recovered.
func healedLoss(m Message, in time.Duration) Message {
	m.Title = strings.TrimSuffix(m.Title, lostSuffix) + HealedLossSuffix
	m.Body = strings.TrimSpace(m.Body + " Recovered in " + durfmt.Short(in) + ".")
	m.Healed = true
	return m
}

// nextFlush reports when the earliest held summary, or held stdio crash,
// is due.
func (s *state) nextFlush() (time.Time, bool) {
	next, _ := s.stdioNext()
	for _, f := range s.folds {
		if due, ok := f.due(s.window); ok && (next.IsZero() || due.Before(next)) {
			next = due
		}
	}
	return next, !next.IsZero()
}
