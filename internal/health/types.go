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
	SigLiveness                                   // a sessionless request's outcome: up, down, stateless
	SigHealStarted                                // the healer began a strategy
	SigHealFailed                                 // a strategy failed; Detail says what to do
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
	PID         int32          // SigHostUp
	Started     time.Time      // SigHostUp: the process's start as its identity
	Began       time.Time      // SigHostUp: its start to a clock tick, when known (orders sessions)
	Restarted   bool           // SigHostUp: a different process than before
	Gap         time.Duration  // SigWoke: how far the wall clock jumped
	Source      map[string]any // extra journal fields that locate the observation (log file, offset)
	Outcome     Outcome        // SigKeepWarm, SigLiveness
	Took        time.Duration  // SigKeepWarm
	Strategy    string         // SigHealStarted, SigHealFailed
	Within      time.Duration  // SigHealStarted: recovery due within this long (0: no deadline)
}

// Event kinds (contract: event journal).
const (
	EvStarted              = "started"
	EvStopped              = "stopped"
	EvServerMode           = "server_mode"
	EvSessionNew           = "session_new"
	EvSessionAtRisk        = "session_at_risk"
	EvSessionExpired       = "session_expired"
	EvSessionLost          = "session_lost"
	EvSessionEnded         = "session_ended"
	EvRecovered            = "recovered"
	EvHostUp               = "host_up"
	EvHostDown             = "host_down"
	EvHostRestarted        = "host_restarted"
	EvLegacyHeaderRejected = "legacy_header_rejected"
	EvWoke                 = "woke"
	EvWarning              = "warning"
	EvTimeoutLearned       = "timeout_learned"
	EvKeepWarm             = "keep_warm"
	EvKeepWarmFailed       = "keep_warm_failed"
	EvServerUp             = "server_up"
	EvServerDown           = "server_down"
	EvHealStarted          = "heal_started"
	EvHealFailed           = "heal_failed"
	EvPatchApplied         = "patch_applied"
	EvPatchReverted        = "patch_reverted"
)

// Event is one change worth journaling. Session is the full id: whoever
// writes it out masks it.
type Event struct {
	Time    time.Time
	Kind    string
	Server  string
	Session string
	Detail  string
	Fields  map[string]any
}
