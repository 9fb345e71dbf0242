package health

import (
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// An Observation is one signal typed per kind: the types in this file,
// each with only the fields its kind has (sealed: the method is
// unexported). A producer builds one of them; the model takes it as the
// Signal it converts to (SignalOf, Observe), so the rules stay in one
// place while the producers can no longer set a field their kind does
// not have.
type Observation interface{ signal() Signal }

// SignalOf is o as the model's Signal.
func SignalOf(o Observation) Signal { return o.signal() }

// Observe applies o (Apply of its Signal).
func (m *Model) Observe(o Observation, now time.Time) []Event { return m.Apply(o.signal(), now) }

// LogLine is what every signal read from a log line carries.
type LogLine struct {
	Server  string      // "" when unattributed
	Session string      // full id, when the line names one
	Detail  string      // what was seen, for the journal
	Source  LogPosition // the line; every event it causes carries it
	HostLog bool        // the line came from the host's own log
	History bool        // the line was in its file before the watchdog first saw it
}

func (l LogLine) signal(kind SignalKind) Signal {
	return Signal{Kind: kind, Server: l.Server, Session: l.Session, Detail: l.Detail, Source: l.Source, HostLog: l.HostLog, History: l.History}
}

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
	// Truncated: the store held this many more sessions than were read.
	Truncated int
	// ServerStarted: when the process serving the server's port started
	// (zero: unknown); ServerGone: it is gone and none serves the port yet.
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

func (o SessionLost) signal() Signal { return o.LogLine.signal(SigSessionLost) }
func (o IdleTimeoutAnnounced) signal() Signal {
	s := o.LogLine.signal(SigIdleTimeout)
	s.IdleTimeout = o.Timeout
	return s
}
func (o LegacyHeaderRejected) signal() Signal { return o.LogLine.signal(SigLegacyHeaderRejected) }
func (o Reconnected) signal() Signal          { return o.LogLine.signal(SigReconnected) }
func (o SessionClosed) signal() Signal {
	s := o.LogLine.signal(SigSessionClosed)
	s.EndReason = o.Reason
	return s
}
func (o StoreSnapshot) signal() Signal {
	return Signal{Kind: SigStoreSnapshot, Server: o.Server, Sessions: o.Sessions, Truncated: o.Truncated,
		ServerStarted: o.ServerStarted, ServerGone: o.ServerGone}
}
func (o StoreGone) signal() Signal {
	return Signal{Kind: SigStoreGone, Server: o.Server, Detail: o.Detail}
}
func (o StoreError) signal() Signal {
	return Signal{Kind: SigStoreError, Server: o.Server, Detail: o.Detail}
}
func (o HostUp) signal() Signal {
	return Signal{Kind: SigHostUp, PID: o.PID, Started: o.Started, Began: o.Began, Restarted: o.Restarted}
}
func (HostDown) signal() Signal     { return Signal{Kind: SigHostDown} }
func (o Warning) signal() Signal    { return Signal{Kind: SigWarning, Server: o.Server, Detail: o.Detail} }
func (o Woke) signal() Signal       { return Signal{Kind: SigWoke, Gap: o.Gap} }
func (o BeaconSeen) signal() Signal { return Signal{Kind: SigBeacon, PID: o.PID, Held: o.Held} }
func (o HealStarted) signal() Signal {
	return Signal{Kind: SigHealStarted, Server: o.Server, Strategy: o.Strategy, Within: o.Within, Detail: o.Detail}
}
func (o HealFailed) signal() Signal {
	return Signal{Kind: SigHealFailed, Server: o.Server, Strategy: o.Strategy, Detail: o.Detail}
}
func (o ProxyHealed) signal() Signal {
	return Signal{Kind: SigProxy, Server: o.Server, Session: o.Session, NewSession: o.NewSession,
		ProxyHealed: o.Healed, Took: o.Took, Detail: o.Detail, Client: o.Client}
}
func (o ProxyUpstream) signal() Signal {
	return Signal{Kind: SigProxyUpstream, Server: o.Server, Session: o.Session}
}
func (o ProxyReleased) signal() Signal {
	return Signal{Kind: SigProxyReleased, Server: o.Server, Session: o.Session}
}
func (o ProxyBridging) signal() Signal {
	return Signal{Kind: SigProxyBridging, Server: o.Server, Detail: o.Detail}
}

// StdioSeen is one report of a stdio supervisor (watchdog stdio) on the
// server it runs for a host, or the daemon's word that the supervisor's
// socket is gone (StdioUnlinked).
type StdioSeen struct {
	Server, Detail string
	Report         StdioReport
}

func (o StdioSeen) signal() Signal {
	return Signal{Kind: SigStdio, Server: o.Server, Detail: o.Detail, Stdio: o.Report}
}

// KeepWarmAnswered is a keep-warm ping's outcome; NamedBy: who named the
// pinged session, when the ping was not the model's own target.
type KeepWarmAnswered struct {
	Server, Session string
	Outcome         Outcome
	Took            time.Duration
	Detail          string
	NamedBy         IdentitySource
}

// LivenessAnswered is a liveness request's outcome: up, down, stateless.
// Answer: how the server answered the made-up Session it was asked about
// ("": not asked, or no lost-session answer); Era: the
// protocol era the check learned ("" none).
type LivenessAnswered struct {
	Server, Session string
	Outcome         Outcome
	Took            time.Duration
	Detail          string
	Answer          host.Answer
	Era             string
}

func (o KeepWarmAnswered) signal() Signal {
	return Signal{Kind: SigKeepWarm, Server: o.Server, Session: o.Session, Outcome: o.Outcome, Took: o.Took, Detail: o.Detail, NamedBy: o.NamedBy}
}

func (o LivenessAnswered) signal() Signal {
	return Signal{Kind: SigLiveness, Server: o.Server, Session: o.Session, Outcome: o.Outcome, Took: o.Took, Detail: o.Detail,
		Answer: o.Answer, Era: o.Era}
}
