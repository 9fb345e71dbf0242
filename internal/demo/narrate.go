package demo

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// narrator writes the story, one timed line at a time, from the acts and
// from the journal's goroutine alike.
type narrator struct {
	mu    sync.Mutex
	out   io.Writer
	start time.Time
	ids   func() []string // every full session id the server ever issued
}

// say prints one line, with any full session id masked on the way out.
func (n *narrator) say(format string, args ...any) {
	line := n.scrub(fmt.Sprintf(format, args...))
	n.mu.Lock()
	defer n.mu.Unlock()
	fmt.Fprintf(n.out, "[%5.1fs] %s\n", time.Since(n.start).Seconds(), line)
}

// plain prints without a time stamp (headings, the summary).
func (n *narrator) plain(format string, args ...any) {
	line := n.scrub(fmt.Sprintf(format, args...))
	n.mu.Lock()
	defer n.mu.Unlock()
	fmt.Fprintln(n.out, line)
}

func (n *narrator) scrub(s string) string {
	if n.ids == nil {
		return s
	}
	for _, id := range n.ids() {
		if len(id) > 8 {
			s = strings.ReplaceAll(s, id, mask.ID(id))
		}
	}
	return s
}

// verb says how a journal kind is narrated; false: it is not.
func verb(kind health.EventKind) (string, bool) {
	switch kind {
	case health.EvStarted, health.EvStopped, health.EvRecovered, health.EvWarning:
		return string(kind), true
	case health.EvSessionNew, health.EvSessionEnded:
		return "saw", true
	case health.EvKeepWarm:
		return "kept warm", true
	case health.EvKeepWarmFailed, health.EvHealFailed:
		return "failed", true
	case health.EvSessionAtRisk:
		return "at risk", true
	case health.EvSessionExpired, health.EvSessionLost:
		return "detected", true
	case health.EvHealStarted:
		return "healing", true
	case health.EvTimeoutLearned, health.EvServerMode:
		return "learned", true
	}
	return "", false
}

// journal narrates one journal record.
func (n *narrator) journal(r Record) {
	v, ok := verb(r.Kind)
	if !ok {
		return
	}
	extra := ""
	switch r.Kind {
	case health.EvHealStarted, health.EvRecovered:
		if s := health.StrategyOf(r.Facts); s != "" {
			extra = " [" + string(s) + "]"
		}
	}
	n.say("  watchdog %-11s %s%s", v+":", r.Detail, extra)
}

// ms renders a duration for a person: milliseconds below 10 s.
func ms(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return d.Round(100 * time.Millisecond).String()
}
