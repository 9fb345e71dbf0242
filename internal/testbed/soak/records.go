package soak

import "github.com/mcpwatchdog/watchdog/internal/journal"

// Identity sources a record of the host's session may carry.
const (
	sourceBeacon   = "beacon"   // the patched client's beacon named the session
	sourceInferred = "inferred" // the store and the client's name: a guess
)

// newSession is the masked id of the session the host uses now, as a
// recovered record names it ("" when it does not know). The record's
// session stays the lost one.
//
// Read from Extra["new_session"] until health.Event gains its typed
// NewSession field; then it reads r.NewSession (journal.Decode takes typed
// names out of Extra), and this is the one place to switch.
func newSession(r journal.Record) string {
	s, _ := r.Extra["new_session"].(string)
	return s
}

// identitySource says where a record about the host's session took that
// session from: sourceBeacon, sourceInferred, or "" when it does not say.
//
// Read from Extra["source"] until health.Event gains its typed field;
// then this is the one place to switch.
func identitySource(r journal.Record) string {
	s, _ := r.Extra["source"].(string)
	return s
}
