// Package health is the watchdog's pure model of session health:
// (state, observation, now) -> (state, []Event). It does no I/O and reads no
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

// Held is what a live patched client's beacon says of one server.
type Held struct {
	Session     string    // full id; "" while it holds none
	Connected   bool      // false: reconnecting or down
	Since       time.Time // connected since (zero: unknown)
	LastRequest time.Time // its last request (zero: unknown)
}

// Event is one change worth journaling: a header every kind has, and in
// Facts the fields of its kind's family only (Opened, Ended, Loss, Risk,
// Recovery, Ping, Attempt, Notice, Supervised; nil for a kind that has none). Session
// is the full id: whoever writes it out masks it.
//
// Why a header and a sealed Facts, not an interface per kind: nearly every
// consumer (the loop, the journal's header, the stream, the tray, the
// timeline's marks) reads only the header, and keeps reading it as plain
// fields; the few that need a family's fields ask for that family with one
// type assertion (l, _ := ev.Facts.(health.Loss)), getting its zero value
// for any other kind. Which family a kind has is the vocabulary's (Kinds),
// and the journal writes exactly that family's fields (Event.Carried).
type Event struct {
	Time    time.Time
	Kind    EventKind
	Server  string
	Session string
	Detail  string
	// Log is the log line the event came from, so a restart resumes after
	// it (log_file, log_fp, log_offset). Any kind a log line causes carries
	// it. Zero: not from a log line.
	Log LogPosition

	// Facts: the typed fields of the kind's family.
	Facts Facts

	// Extra holds the journal's other fields (pid, mode, ...), written as
	// they are; no code branches on them. A name the vocabulary types is
	// not taken from here.
	Extra map[string]any
}

// Facts is one of the event families below (sealed: the method, which
// names the family, is unexported), each with only the fields its kinds
// have. Durations are in
// the journal's units (whole milliseconds for Took, whole seconds for Idle
// and ExpiresIn), so a live event and its line read back agree.
type Facts interface{ family() string }

// Opened (session_new): the session's clientInfo.name.
type Opened struct{ Client string }

// Ended (session_expired, session_ended): the session's client and how
// long it sat idle.
type Ended struct {
	Client string
	Idle   time.Duration
}

// Loss (session_lost): Incident, the host's own session, and an incident
// opens (its line names no client); otherwise a session of Client. Source:
// where the host's session was known from (empty: not the host's).
type Loss struct {
	Incident bool
	Client   string
	Source   IdentitySource
}

// Risk (session_at_risk): how long the host's session sat idle, and the
// time left before the server's idle timeout.
type Risk struct {
	Idle, ExpiresIn time.Duration
	Source          IdentitySource
}

// Recovery (recovered): how the loss was healed ("" none) and how long it
// lasted (zero: not measured); NewSession is the session the host uses
// now, full in memory and masked when journaled (empty: not known).
type Recovery struct {
	Strategy   Strategy
	Took       time.Duration
	NewSession string
	Source     IdentitySource
	// Client: the clientInfo.name of the host whose call the proxy healed
	// (in memory only, never journaled), so the event names that host only
	// when it is the watched one.
	Client string
}

// Ping (keep_warm, keep_warm_failed): how long the ping took.
type Ping struct {
	Took   time.Duration
	Source IdentitySource
}

// Attempt (heal_started, heal_failed): the strategy tried.
type Attempt struct{ Strategy Strategy }

// Notice (notified): what a notification was about, one of notify's
// About values, and the incident it told (its Message.Thread; "" for a
// summary or a bubble outside an incident): which event a shown bubble
// told, whatever else its server said meanwhile.
type Notice struct{ About, Thread string }

// Supervised (stdio_*): what a stdio supervisor (watchdog stdio) said of
// the server it runs for a host. Took: how long a restart took, from the
// death to the server answering the replayed initialize; Exit: how it
// ended ("signal: killed"); Stderr: its last line on stderr; Method: the
// failed call's (stdio_call_failed); Starts: its starts under that
// supervisor, the first included; Supervisor and Child: the supervisor's
// and the server's processes.
type Supervised struct {
	Took                 time.Duration
	Exit, Stderr, Method string
	Starts               int
	Supervisor, Child    int
}

func (Opened) family() string     { return "opened" }
func (Ended) family() string      { return "ended" }
func (Loss) family() string       { return "loss" }
func (Risk) family() string       { return "risk" }
func (Recovery) family() string   { return "recovery" }
func (Ping) family() string       { return "ping" }
func (Attempt) family() string    { return "attempt" }
func (Notice) family() string     { return "notice" }
func (Supervised) family() string { return "supervised" }

// ClientOf is the clientInfo.name an event's facts name: a session's
// (Opened, Ended, Loss) or the host's whose call the proxy healed
// (Recovery); "" for the others.
func ClientOf(f Facts) string {
	switch f := f.(type) {
	case Opened:
		return f.Client
	case Ended:
		return f.Client
	case Loss:
		return f.Client
	case Recovery:
		return f.Client
	}
	return ""
}

// StrategyOf is the heal strategy an event's facts name (Attempt,
// Recovery); "" for the others.
func StrategyOf(f Facts) Strategy {
	switch f := f.(type) {
	case Attempt:
		return f.Strategy
	case Recovery:
		return f.Strategy
	}
	return ""
}

// sourceOf is the source f says ("": none yet).
func sourceOf(f Facts) IdentitySource {
	switch f := f.(type) {
	case Loss:
		return f.Source
	case Risk:
		return f.Source
	case Recovery:
		return f.Source
	case Ping:
		return f.Source
	}
	return ""
}

// sourcedAs is f with the host's session's source set, for the families
// that name the host's session; others are returned as they are.
func sourcedAs(f Facts, src IdentitySource) Facts {
	switch f := f.(type) {
	case Loss:
		f.Source = src
		return f
	case Risk:
		f.Source = src
		return f
	case Recovery:
		f.Source = src
		return f
	case Ping:
		f.Source = src
		return f
	}
	return f
}

// LogPosition locates a log line: its file, the file's fingerprint and the
// offset just after the line.
type LogPosition struct {
	File        string
	Fingerprint string
	Offset      int64
}
