package journal

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// A store rewritten with thousands of new sessions a second, or a log
// naming a new session on every line, would journal an event for each and
// rotate the journal's history away. Each server may journal limitBurst
// session events at once and limitRate a second after that; past it they
// are counted, not journaled, and a warning says so when the limit
// engages and when it lifts. Incidents, heals, the host, the daemon's
// start and stop and its warnings are never limited: they are few by
// nature (the model folds a flapping session into one incident).
const (
	limitBurst = 600
	limitRate  = 1.0 // events a second
)

// limited is what the limit applies to: events a busy or hostile store or
// log makes one per session.
func limited(ev health.Event) bool {
	switch ev.Kind {
	case health.EvSessionNew, health.EvSessionEnded, health.EvSessionExpired, health.EvSessionAtRisk,
		health.EvLegacyHeaderRejected:
		return true
	case health.EvSessionLost:
		l, _ := ev.Facts.(health.Loss)
		return !l.Incident && ev.Server != "" // another client's session
	}
	return false
}

// Limit holds a token bucket per server. Not safe for concurrent
// use: the loop owns it.
type Limit struct {
	buckets map[string]*bucket
}

type bucket struct {
	tokens  float64
	at      time.Time
	dropped map[health.EventKind]int // since the limit engaged; nil: not engaged
}

// NewLimit is a limit with no server engaged.
func NewLimit() *Limit { return &Limit{buckets: map[string]*bucket{}} }

// Admit reports whether ev may be journaled, and returns the warning to
// journal first when ev is the one that engages the limit.
func (l *Limit) Admit(ev health.Event, now time.Time) (bool, []health.Event) {
	if !limited(ev) {
		return true, nil
	}
	b := l.bucketAt(ev.Server, now)
	if b.tokens >= 1 {
		b.tokens--
		return true, nil
	}
	if b.dropped != nil {
		b.dropped[ev.Kind]++
		return false, nil
	}
	b.dropped = map[health.EventKind]int{ev.Kind: 1}
	return false, []health.Event{{Time: now, Kind: health.EvWarning, Server: ev.Server,
		Detail: fmt.Sprintf("%s: more than %d session events at once; counting them instead of journaling them until it calms down "+
			"(incidents are still journaled)", ev.Server, limitBurst)}}
}

// Lifted returns the warnings of the limits that calmed down by now (their
// bucket full again), with what they left out.
func (l *Limit) Lifted(now time.Time) []health.Event {
	if _, engaged := l.NextLift(); !engaged {
		return nil // every tick: listing every server's bucket in order allocated
	}
	var out []health.Event
	for _, server := range slices.Sorted(maps.Keys(l.buckets)) {
		b := l.bucketAt(server, now)
		if b.dropped == nil || b.tokens < limitBurst {
			continue
		}
		out = append(out, health.Event{Time: now, Kind: health.EvWarning, Server: server,
			Extra:  map[string]any{"not_journaled": total(b.dropped)},
			Detail: fmt.Sprintf("%s calmed down; not journaled meanwhile: %s", server, counts(b.dropped))})
		b.dropped = nil
	}
	return out
}

// NextLift is when the first engaged limit refills to its burst, so that
// Lifted has news; ok is false while no limit is engaged.
func (l *Limit) NextLift() (at time.Time, ok bool) {
	for _, b := range l.buckets {
		if b.dropped == nil {
			continue
		}
		// A millisecond over, so float rounding cannot leave it a hair short.
		full := b.at.Add(time.Duration((limitBurst-b.tokens)/limitRate*float64(time.Second)) + time.Millisecond)
		if !ok || full.Before(at) {
			at, ok = full, true
		}
	}
	return at, ok
}

// bucketAt is server's bucket, refilled up to now.
func (l *Limit) bucketAt(server string, now time.Time) *bucket {
	b := l.buckets[server]
	if b == nil {
		b = &bucket{tokens: limitBurst, at: now}
		l.buckets[server] = b
	}
	if elapsed := now.Sub(b.at); elapsed > 0 {
		b.tokens = min(limitBurst, b.tokens+elapsed.Seconds()*limitRate)
	}
	b.at = now
	return b
}

func total(dropped map[health.EventKind]int) int {
	n := 0
	for _, c := range dropped {
		n += c
	}
	return n
}

// counts reads "session_new 9800, session_ended 200".
func counts(dropped map[health.EventKind]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(dropped)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, dropped[k]))
	}
	return strings.Join(parts, ", ")
}
