// Package health is the watchdog's pure model of session health:
// (state, signal, now) -> (state, []Event). It does no I/O and reads no
// clock; every rule about what counts as healthy, at risk, expired, lost or
// recovered lives here, so it can be tested with a fake clock.
package health

import "time"

// State is the health of a server or a session, as shown in status.
type State string

// States (contract: status document).
const (
	Healthy State = "healthy"
	AtRisk  State = "at_risk"
	Healing State = "healing"
	Lost    State = "lost"
	Down    State = "down"
	Unknown State = "unknown"
	Expired State = "expired" // sessions only
)

// Mode is a server's protocol era as far as sessions go.
type Mode string

// Modes (contract: status document).
const (
	Stateful    Mode = "stateful"
	Stateless   Mode = "stateless"
	ModeUnknown Mode = "unknown"
)

// SignalKind says what a monitor observed.
type SignalKind int

// Signal kinds.
const (
	SigSessionLost          SignalKind = iota + 1 // a log says a session is gone
	SigIdleTimeout                                // the server announced its idle timeout
	SigLegacyHeaderRejected                       // the server refused a legacy session header
	SigReconnected                                // a log says the client reconnected
	SigStoreSnapshot                              // a good snapshot of the session store
	SigStoreGone                                  // the store was deleted or is absent
	SigStoreError                                 // the store could not be read; last snapshot stays
	SigHostUp                                     // the host process runs
	SigHostDown                                   // the host process is gone
	SigWarning                                    // a monitor hit a non-fatal problem
	SigWoke                                       // the wall clock jumped (sleep/wake)
	SigKeepWarm                                   // a keep-warm ping's outcome
	SigLiveness                                   // a liveness request's outcome: up, down, stateless (Status: how it answers a lost session)
	SigHealStarted                                // the healer began a strategy
	SigHealFailed                                 // a strategy failed; Detail says what to do
	SigBeacon                                     // the patched client's beacon: what the host holds (Held)
	SigSessionClosed                              // the server's log says it ended a session, and why (EndReason)
	SigProxy                                      // the watchdog's proxy healed (or could not heal) a loss: ProxyHealed
	SigProxyUpstream                              // a proxy of the same server opened Session upstream: not this entry's host's
	SigProxyReleased                              // a proxy of the same server ends Session upstream itself (DELETE)
	SigProxyBridging                              // the server is modern-only and its proxy bridges its legacy hosts over it
)

// A server's protocol era, in the words probe and status use (the values
// of mcphttp.Era; healer checks they agree). "" is unknown.
const (
	EraLegacy     = "legacy"      // initialize and sessions, no 2026-07-28
	EraBoth       = "both eras"   // 2026-07-28, and still the legacy era
	EraModernOnly = "modern-only" // 2026-07-28 only: a legacy host reaches it only through the proxy's bridge
)

// EndReason is why a server says it ended a session.
type EndReason string

// The end reasons a server's log can give (monitor/classify reads them).
const (
	EndIdle     EndReason = "idle"     // its idle timeout ran out
	EndDeleted  EndReason = "deleted"  // the client ended it (DELETE)
	EndShutdown EndReason = "shutdown" // the server stopped or restarted
)

// StoreSession is one session as read from a server's session store.
// Zero times are unknown.
type StoreSession struct {
	ID           string
	Client       string
	LastActivity time.Time
	Created      time.Time
}

// Signal is one observation. Only the fields of its kind are set.
type Signal struct {
	Kind    SignalKind
	Server  string // "" when it concerns the host or is unattributed
	Session string // full id, when the observation names one
	Detail  string // what was seen, for the journal (no full session ids)

	IdleTimeout time.Duration  // SigIdleTimeout
	Sessions    []StoreSession // SigStoreSnapshot
	// Truncated (SigStoreSnapshot): the store held this many more sessions
	// than were read, the least recently active ones; a session missing from
	// the snapshot may be among them.
	Truncated int
	PID       int32         // SigHostUp; SigBeacon: the beacon's writer
	Started   time.Time     // SigHostUp: the process's start as its identity
	Began     time.Time     // SigHostUp: its start to a clock tick, when known (orders sessions)
	Restarted bool          // SigHostUp: a different process than before
	Gap       time.Duration // SigWoke: how far the wall clock jumped; negative: set back
	Source    LogPosition   // the log line observed; every event it causes carries it
	Outcome   Outcome       // SigKeepWarm, SigLiveness
	// Status (SigLiveness): the HTTP status the server answered a session
	// it does not know with (Session: the made-up id asked about), 0 when
	// the check asked no such thing or the answer was no lost session.
	Status int
	// LostRPC (SigLiveness): the lost-session answer's body was a JSON-RPC
	// error (the TypeScript and Python SDKs'), not plain text (the Go
	// SDK's): some hosts heal after one and not the other.
	LostRPC bool
	// Era (SigLiveness): the server's protocol era as the check learned it
	// (EraLegacy, EraBoth, EraModernOnly); "" when it learned none.
	Era       string
	Took      time.Duration // SigKeepWarm
	Strategy  Strategy      // SigHealStarted, SigHealFailed
	Within    time.Duration // SigHealStarted: recovery due within this long (0: no deadline)
	EndReason EndReason     // SigSessionClosed
	// HostLog: the line came from the host's own log (SigSessionLost): the
	// host runs, whatever the process watcher has found.
	HostLog bool
	// History: the line was in its file before the watchdog first saw it.
	History bool
	// ServerStarted (SigStoreSnapshot): when the process serving the
	// server's port started, as read when the snapshot was taken. Zero:
	// unknown. A change between snapshots is a server restart.
	ServerStarted time.Time
	// ServerGone (SigStoreSnapshot): the process last seen serving the port
	// is gone and none serves it yet: the sessions in the snapshot have
	// not survived that restart, they are only not yet dropped.
	ServerGone bool
	// Held (SigBeacon): per server, the session the live patched client
	// holds. Nil: no live beacon (the client is gone or unpatched).
	Held map[string]Held
	// SigProxy: the server lost Session, a session the proxy held for a
	// host; ProxyHealed says whether the proxy answered the host's call on
	// NewSession (Took: the host's call across it) or could not open one.
	// Client is the clientInfo.name of that host's initialize.
	ProxyHealed bool
	Client      string
	NewSession  string
	// NamedBy (SigKeepWarm): who named the pinged session, when the ping
	// was not the model's own target (WarmTarget.NamedBy); the events it
	// causes say so rather than what the model knows when it arrives.
	NamedBy IdentitySource
}

// Held is what a live patched client's beacon says of one server.
type Held struct {
	Session     string    // full id; "" while it holds none
	Connected   bool      // false: reconnecting or down
	Since       time.Time // connected since (zero: unknown)
	LastRequest time.Time // its last request (zero: unknown)
}

// Event is one change worth journaling. Session is the full id: whoever
// writes it out masks it. The fields that code reads are typed; which of
// them a kind's journal line carries is the vocabulary's (Kinds, Carries).
type Event struct {
	Time    time.Time
	Kind    EventKind
	Server  string
	Session string
	Detail  string

	// Incident: this session_lost is the host's session, and an incident
	// opens; false for a session of another client.
	Incident bool
	// Strategy of heal_started, heal_failed and recovered ("" when none).
	Strategy Strategy
	// Took is how long the loss lasted (recovered) or the ping took
	// (keep_warm, keep_warm_failed), in whole milliseconds as journaled
	// (took_ms), so a live event and its line read back agree. Zero: not
	// measured.
	Took time.Duration
	// Client is the clientInfo.name of the session of session_new,
	// session_expired, session_ended and another client's session_lost.
	Client string
	// Idle is how long the session sat idle (session_at_risk,
	// session_expired, session_ended), in whole seconds (idle_seconds).
	Idle time.Duration
	// ExpiresIn is the time left before the server's idle timeout
	// (session_at_risk), in whole seconds (expires_in_seconds).
	ExpiresIn time.Duration
	// About says what a notification was about (notified): one of
	// notify's About values.
	About string
	// Log is the log line the event came from, so a restart resumes after
	// it (log_file, log_fp, log_offset). Zero: not from a log line.
	Log LogPosition
	// Source says where the host's session named by this event was known
	// from (source): its beacon, or inferred. Empty: not the host's session.
	Source IdentitySource
	// NewSession is the session the host uses now (recovered), full in
	// memory and masked when journaled (new_session). Empty: not known.
	NewSession string

	// Extra holds the journal's other fields (pid, mode, ...), written as
	// they are; no code branches on them. A name the vocabulary types is
	// not taken from here.
	Extra map[string]any
}

// LogPosition locates a log line: its file, the file's fingerprint and the
// offset just after the line.
type LogPosition struct {
	File        string
	Fingerprint string
	Offset      int64
}
