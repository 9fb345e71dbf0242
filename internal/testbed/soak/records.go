package soak

import (
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
func newSession(r journal.Record) string { return r.NewSession }

// identitySource says where a record about the host's session took that
// session from: sourceBeacon, sourceProxy, sourceInferred, or "" when it
// does not say.
func identitySource(r journal.Record) string { return string(r.Source) }
