package notify

import "time"

// A log flood or a flapping server must not become a bubble every few
// seconds for hours. Past hourBudget bubbles within an hour, the bubbles
// that fold (losses, recoveries, heal failures) no longer go out alone:
// each waits for its kind's storm summary ("MCP watchdog: 37 more
// sessions lost: mem (37)"), at most one per kind per storm window; at-risk
// warnings are not shown (the journal has them). Reminders (one an hour per
// open incident) and losses naming no server (one per unplacedQuiet) bound
// themselves.
//
// The window stays the storm's: a longer one (a minute was tried) left
// whole storms untold when the daemon was killed before their summary, as
// the chaos soak, killing it every half minute, showed (run 11).
const hourBudget = 100

// budget remembers when the last hourBudget bubbles were decided.
type budget struct {
	sent []time.Time // oldest first
}

// over reports whether an hour before now already holds hourBudget bubbles.
func (b *budget) over(now time.Time) bool {
	return len(b.sent) >= hourBudget && now.Sub(b.sent[0]) < time.Hour
}

// spend counts one bubble decided at now.
func (b *budget) spend(now time.Time) {
	b.sent = append(b.sent, now)
	if len(b.sent) > hourBudget {
		b.sent = b.sent[len(b.sent)-hourBudget:]
	}
}

// spent counts msgs against the budget, leaving out at-risk warnings once
// it is spent.
func (s *state) spent(now time.Time, msgs []Message) []Message {
	var out []Message
	for _, m := range msgs {
		if m.About == AboutAtRisk && s.budget.over(now) {
			continue
		}
		s.budget.spend(now)
		out = append(out, m)
	}
	return out
}
