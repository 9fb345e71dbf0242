package soak

import (
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// Identity sources a record of the host's session may carry.
const (
	sourceBeacon   = string(health.SourceBeacon)   // the patched client's beacon named the session
	sourceInferred = string(health.SourceInferred) // the store and the client's name: a guess
	sourceProxy    = string(health.SourceProxy)    // the watchdog's proxy saw the host's calls
)

// newSession is the masked id of the session the host uses now, as a
// recovered record names it ("" when it does not know). The record's
// session stays the lost one.
func newSession(r journal.Record) string {
	rec, _ := r.Facts.(health.Recovery)
	return rec.NewSession
}

// identitySource says where a record about the host's session took that
// session from: sourceBeacon, sourceProxy, sourceInferred, or "" when it
// does not say.
func identitySource(r journal.Record) string {
	switch f := r.Facts.(type) {
	case health.Loss:
		return string(f.Source)
	case health.Risk:
		return string(f.Source)
	case health.Recovery:
		return string(f.Source)
	case health.Ping:
		return string(f.Source)
	}
	return ""
}

// incident: r is the loss of the host's own session.
func incident(r journal.Record) bool {
	l, _ := r.Facts.(health.Loss)
	return l.Incident
}

// took is how long a recovered record's loss or a ping's round trip took.
func took(r journal.Record) time.Duration {
	switch f := r.Facts.(type) {
	case health.Recovery:
		return f.Took
	case health.Ping:
		return f.Took
	}
	return 0
}

// aboutOf is what a notified record's notification was about.
func aboutOf(r journal.Record) string {
	n, _ := r.Facts.(health.Notice)
	return n.About
}
