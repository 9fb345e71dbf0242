package healer

import (
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// Keep-warm pacing (contract: keep_warm).
const (
	// MinPingGap: never ping one server more often than this, or a quarter
	// of its idle timeout when that is shorter.
	MinPingGap = 5 * time.Second
)

// KeepWarm decides when the host's current session needs a ping: at half
// its idle timeout, every quarter timeout when its last activity is not
// known, and at once after a wake. It is pure: the caller does the pinging.
type KeepWarm struct {
	last map[string]time.Time // server → our last ping
}

// NewKeepWarm returns an empty schedule.
func NewKeepWarm() *KeepWarm { return &KeepWarm{last: map[string]time.Time{}} }

// Due returns the targets to ping now and records them as pinged. force
// (after a wake) pings every target not pinged within the minimum gap.
func (k *KeepWarm) Due(targets []health.WarmTarget, now time.Time, force bool) []health.WarmTarget {
	var due []health.WarmTarget
	for _, t := range targets {
		if k.due(t, now, force) {
			k.last[t.Server] = now
			due = append(due, t)
		}
	}
	return due
}

func (k *KeepWarm) due(t health.WarmTarget, now time.Time, force bool) bool {
	since, pinged := k.sinceLast(t.Server, now)
	if pinged && since < minGap(t.Timeout) {
		return false
	}
	switch {
	case force:
		return true
	case t.ActivityKnown:
		return t.Idle >= t.Timeout/2
	}
	return !pinged || since >= t.Timeout/4
}

// Unsent takes back the ping Due just recorded for server, when it could
// not be sent: the next look tries again instead of waiting a whole gap.
func (k *KeepWarm) Unsent(server string) { delete(k.last, server) }

// sinceLast is the time since our last ping of server. A last ping that
// lies ahead of now (the clock was set back) counts as no ping: waiting for
// the clock to catch up would let the session expire.
func (k *KeepWarm) sinceLast(server string, now time.Time) (time.Duration, bool) {
	last, ok := k.last[server]
	if !ok || now.Before(last) {
		return 0, false
	}
	return now.Sub(last), true
}

// Next says how long until a target could next be due: the caller's timer
// need not wake sooner.
func (k *KeepWarm) Next(targets []health.WarmTarget, now time.Time) time.Duration {
	next := time.Duration(-1)
	for _, t := range targets {
		var d time.Duration
		since, pinged := k.sinceLast(t.Server, now)
		if t.ActivityKnown {
			d = t.Timeout/2 - t.Idle
		} else if pinged {
			d = t.Timeout/4 - since
		}
		if pinged {
			d = max(d, minGap(t.Timeout)-since)
		}
		d = max(d, 0)
		if next < 0 || d < next {
			next = d
		}
	}
	return next
}

func minGap(timeout time.Duration) time.Duration {
	return min(MinPingGap, timeout/4)
}
