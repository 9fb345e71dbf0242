package health

// EventKind names a journaled event (contract: event journal). Every kind
// is in Kinds: the journal, metrics and notifications range over that
// table, so a kind added here cannot be missed by them unnoticed.
type EventKind string

// Event kinds (contract: event journal).
const (
	EvStarted              EventKind = "started"
	EvStopped              EventKind = "stopped"
	EvServerMode           EventKind = "server_mode"
	EvSessionNew           EventKind = "session_new"
	EvSessionAtRisk        EventKind = "session_at_risk"
	EvSessionExpired       EventKind = "session_expired"
	EvSessionLost          EventKind = "session_lost"
	EvSessionEnded         EventKind = "session_ended"
	EvRecovered            EventKind = "recovered"
	EvHostUp               EventKind = "host_up"
	EvHostDown             EventKind = "host_down"
	EvHostRestarted        EventKind = "host_restarted"
	EvLegacyHeaderRejected EventKind = "legacy_header_rejected"
	EvWoke                 EventKind = "woke"
	EvWarning              EventKind = "warning"
	EvTimeoutLearned       EventKind = "timeout_learned"
	EvKeepWarm             EventKind = "keep_warm"
	EvKeepWarmFailed       EventKind = "keep_warm_failed"
	EvServerUp             EventKind = "server_up"
	EvServerDown           EventKind = "server_down"
	EvHealStarted          EventKind = "heal_started"
	EvHealFailed           EventKind = "heal_failed"
	EvPatchApplied         EventKind = "patch_applied"
	EvPatchReverted        EventKind = "patch_reverted"
	// EvHostAdopted and EvHostReleased: a host's servers were routed
	// through the watchdog's proxy (watchdog hosts adopt, or the tray's
	// Protect), or put back.
	EvHostAdopted  EventKind = "host_adopted"
	EvHostReleased EventKind = "host_released"
	// EvNotified: a desktop notification was shown (internal/notify), so a
	// restart re-sends only what was decided and never shown.
	EvNotified EventKind = "notified"
)

// Strategy names a way to heal a lost session, as journaled and as the
// metrics label. The healer's table lists them all; the model names only
// the one it infers by itself.
type Strategy string

// StrategyReconnect: the client reconnected on its own, with no heal under
// way (a recovery's strategy when none was started).
const StrategyReconnect Strategy = "reconnect"

// StrategyProxy: the watchdog's proxy opened a new session for the host
// and answered its call there; the host never saw the loss.
const StrategyProxy Strategy = "proxy"

// IdentitySource says where the model took the host's session from.
type IdentitySource string

// Identity sources (contract: status document, "source").
const (
	// SourceBeacon: the patched client's beacon named the session it holds.
	SourceBeacon IdentitySource = "beacon"
	// SourceInferred: the newest session of the host's client name since the
	// host started, from the server's store: a guess.
	SourceInferred IdentitySource = "inferred"
	// SourceProxy: the watchdog's proxy carries the host's calls and saw
	// the loss itself.
	SourceProxy IdentitySource = "proxy"
)

// Field is a set of Event's typed fields, by which the vocabulary says
// what a kind's journal line carries.
type Field uint16

// Typed fields of Event.
const (
	FieldIncident Field = 1 << iota
	FieldStrategy
	FieldTook
	FieldClient
	FieldIdle
	FieldExpiresIn
	FieldAbout
	FieldLog
	FieldSource
	FieldNewSession
)

// KindInfo is one event kind and the typed fields its journal lines always
// carry, zero or not (a missing client is written as "", not left out).
type KindInfo struct {
	Kind    EventKind
	Carries Field
}

// Kinds is the vocabulary: every event kind, with what its lines carry.
// Incident, Log, Source and NewSession are not listed: they are written
// whenever they are set.
// A new kind is one constant and one entry here.
func Kinds() []KindInfo {
	const session = FieldClient | FieldIdle
	return []KindInfo{
		{EvStarted, 0},
		{EvStopped, 0},
		{EvServerMode, 0},
		{EvSessionNew, FieldClient},
		{EvSessionAtRisk, FieldIdle | FieldExpiresIn},
		{EvSessionExpired, session},
		{EvSessionLost, FieldClient}, // unless an incident: see Event.Carries
		{EvSessionEnded, session},
		{EvRecovered, FieldTook | FieldStrategy},
		{EvHostUp, 0},
		{EvHostDown, 0},
		{EvHostRestarted, 0},
		{EvLegacyHeaderRejected, 0},
		{EvWoke, 0},
		{EvWarning, 0},
		{EvTimeoutLearned, 0},
		{EvKeepWarm, FieldTook},
		{EvKeepWarmFailed, FieldTook},
		{EvServerUp, 0},
		{EvServerDown, 0},
		{EvHealStarted, FieldStrategy},
		{EvHealFailed, FieldStrategy},
		{EvPatchApplied, 0},
		{EvPatchReverted, 0},
		{EvHostAdopted, 0},
		{EvHostReleased, 0},
		{EvNotified, FieldAbout},
	}
}

// EventKinds lists every kind of Kinds, in its order.
func EventKinds() []EventKind {
	infos := Kinds()
	out := make([]EventKind, len(infos))
	for i, k := range infos {
		out[i] = k.Kind
	}
	return out
}

// Known reports whether k is in the vocabulary.
func (k EventKind) Known() bool {
	for _, info := range Kinds() {
		if info.Kind == k {
			return true
		}
	}
	return false
}

// Carries is the set of typed fields ev's journal line holds: those its
// kind always carries, plus Incident and Log when set. An incident's
// session_lost is the host's own session and names no client.
func (ev Event) Carries() Field {
	var f Field
	for _, info := range Kinds() {
		if info.Kind == ev.Kind {
			f = info.Carries
			break
		}
	}
	if ev.Incident {
		f = f&^FieldClient | FieldIncident
	}
	if ev.Log != (LogPosition{}) {
		f |= FieldLog
	}
	if ev.Source != "" {
		f |= FieldSource
	}
	if ev.NewSession != "" {
		f |= FieldNewSession
	}
	return f
}

// Has reports whether every field of g is in f.
func (f Field) Has(g Field) bool { return f&g == g }
