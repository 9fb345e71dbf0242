package health

import (
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// An Observation is one thing a producer saw, typed per kind: the types
// in this file, each with only the fields its kind has. The model takes it
// as it is (Model.Apply) and dispatches on its type, each kind's rule
// reading its own fields; a producer cannot set a field its kind does not
// have. Sealed: the method, which names the server the observation
// concerns, is unexported.
type Observation interface{ server() string }

// ServerOf is the server o concerns: "" when it concerns the host or the
// machine, or is unattributed.
func ServerOf(o Observation) string { return o.server() }

// LogLine is what every observation read from a log line carries.
type LogLine struct {
	Server  string      // "" when unattributed
	Session string      // full id, when the line names one
	Detail  string      // what was seen, for the journal
	Source  LogPosition // the line; every event it causes carries it
	HostLog bool        // the line came from the host's own log: the host runs, whatever the process watcher found
	History bool        // the line was in its file before the watchdog first saw it
}

// logLine is the line an observation read from a log came from. (A bare
// LogLine is no observation: it has no server method of its own.)
func (l LogLine) logLine() LogLine { return l }

// SessionLost: a log says a session is gone.
type SessionLost struct{ LogLine }

// IdleTimeoutAnnounced: the server announced its idle timeout.
type IdleTimeoutAnnounced struct {
	LogLine
	Timeout time.Duration
}

// LegacyHeaderRejected: the server refused a legacy session header.
type LegacyHeaderRejected struct{ LogLine }

// Reconnected: a log says the client reconnected.
type Reconnected struct{ LogLine }

// SessionClosed: the server's log says it ended a session, and why.
type SessionClosed struct {
	LogLine
	Reason EndReason
}

// StoreSnapshot is a good snapshot of a server's session store.
type StoreSnapshot struct {
	Server   string
	Sessions []StoreSession
	// Truncated: the store held this many more sessions than were read,
	// the least recently active ones; a session missing from the snapshot
	// may be among them.
	Truncated int
	// ServerStarted: when the process serving the server's port started,
	// as read when the snapshot was taken (zero: unknown); a change between
	// snapshots is a server restart. ServerGone: the process last seen
	// serving the port is gone and none serves it yet: the sessions in the
	// snapshot have not survived that restart, they are only not yet
	// dropped.
	ServerStarted time.Time
	ServerGone    bool
}

// StoreGone: the store was deleted or is absent.
type StoreGone struct{ Server, Detail string }

// StoreError: the store could not be read; the last snapshot stays.
type StoreError struct{ Server, Detail string }

// HostUp: the host process runs.
type HostUp struct {
	PID       int32
	Started   time.Time // the process's start as its identity
	Began     time.Time // its start to a clock tick, when known
	Restarted bool      // a different process than before
}

// HostDown: the host process is gone.
type HostDown struct{}

// Warning: a monitor hit a non-fatal problem.
type Warning struct{ Server, Detail string }

// Woke: the wall clock jumped (sleep/wake) by Gap; a negative Gap set it
// back.
type Woke struct{ Gap time.Duration }

// BeaconSeen is the patched client's beacon: what the host (PID) holds
// per server; Held nil: no live beacon.
type BeaconSeen struct {
	PID  int32
	Held map[string]Held
}

// HealStarted: the healer began a strategy; recovery is due Within (0:
// no deadline).
type HealStarted struct {
	Server   string
	Strategy Strategy
	Within   time.Duration
	Detail   string
}

// HealFailed: a strategy failed; Detail says what to do.
type HealFailed struct {
	Server   string
	Strategy Strategy
	Detail   string
}

// ProxyHealed: the watchdog's proxy healed (Healed) or could not heal a
// loss of Session, on NewSession, for the host whose client is Client.
type ProxyHealed struct {
	Server, Session, NewSession string
	Healed                      bool
	Took                        time.Duration
	Detail, Client              string
}

// ProxyUpstream: a proxy of the same server opened Session upstream.
type ProxyUpstream struct{ Server, Session string }

// ProxyReleased: a proxy of the same server ends Session upstream itself.
type ProxyReleased struct{ Server, Session string }

// ProxyBridging: the server is modern-only and its proxy bridges its
// legacy hosts over it.
type ProxyBridging struct{ Server, Detail string }

// ProxyAttached: a host met its proxied server down at its start, and the
// proxy stood in (healer/proxy's attach path): Kind says how, one of
// EvHostAttached (answered from what the server last said, at Known),
// EvHostWaiting (nothing known: its first request waits for the server),
// EvHostCaughtUp (the server came up: the host's session is open, Took
// after it attached) and EvCallNotUp (a call waited Took in vain). Host is
// the host's profile name when its client is a watched host's (Client).
type ProxyAttached struct {
	Server       string
	Kind         EventKind
	Host, Client string
	Known        time.Time
	Took         time.Duration
	Detail       string
}

// StdioSeen is one report of a stdio supervisor (watchdog stdio) on the
// server it runs for a host, or the daemon's word that the supervisor's
// socket is gone (StdioUnlinked).
type StdioSeen struct {
	Server, Detail string
	Report         StdioReport
}

// KeepWarmAnswered is a keep-warm ping's outcome; NamedBy: who named the
// pinged session, when the ping was not the model's own target
// (WarmTarget.NamedBy): the events it causes say so rather than what the
// model knows when it arrives.
type KeepWarmAnswered struct {
	Server, Session string
	Outcome         Outcome
	Took            time.Duration
	Detail          string
	NamedBy         IdentitySource
}

// LivenessAnswered is a liveness request's outcome: up, down, stateless.
// Answer: the kind of answer the server gave the made-up Session it was
// asked about (some hosts heal after one kind and not another); "": not
// asked, or no lost-session answer. Era: the protocol era the check
// learned (EraLegacy, EraBoth, EraModernOnly; "" none).
type LivenessAnswered struct {
	Server, Session string
	Outcome         Outcome
	Took            time.Duration
	Detail          string
	Answer          host.Answer
	Era             string
}

// The server each observation concerns.
func (o SessionLost) server() string          { return o.Server }
func (o IdleTimeoutAnnounced) server() string { return o.Server }
func (o LegacyHeaderRejected) server() string { return o.Server }
func (o Reconnected) server() string          { return o.Server }
func (o SessionClosed) server() string        { return o.Server }
func (o StoreSnapshot) server() string        { return o.Server }
func (o StoreGone) server() string            { return o.Server }
func (o StoreError) server() string           { return o.Server }
func (HostUp) server() string                 { return "" }
func (HostDown) server() string               { return "" }
func (o Warning) server() string              { return o.Server }
func (Woke) server() string                   { return "" }
func (BeaconSeen) server() string             { return "" }
func (o HealStarted) server() string          { return o.Server }
func (o HealFailed) server() string           { return o.Server }
func (o ProxyHealed) server() string          { return o.Server }
func (o ProxyUpstream) server() string        { return o.Server }
func (o ProxyReleased) server() string        { return o.Server }
func (o ProxyBridging) server() string        { return o.Server }
func (o ProxyAttached) server() string        { return o.Server }
func (o StdioSeen) server() string            { return o.Server }
func (o KeepWarmAnswered) server() string     { return o.Server }
func (o LivenessAnswered) server() string     { return o.Server }
