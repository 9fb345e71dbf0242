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
	// The stdio servers a supervisor (watchdog stdio) runs for a host: the
	// server died while its host was connected, was started again, a call
	// in flight at its death was answered with an error, it kept dying
	// and the supervisor stopped starting it, it left a request and a
	// ping unanswered, or it came back another version. Each names its
	// host (Extra "host") and server.
	EvStdioExited     EventKind = "stdio_exited"
	EvStdioRestarted  EventKind = "stdio_restarted"
	EvStdioCallFailed EventKind = "stdio_call_failed"
	EvStdioGaveUp     EventKind = "stdio_gave_up"
	EvStdioHung       EventKind = "stdio_hung"
	EvStdioChanged    EventKind = "stdio_changed"
	// A host that started while its proxied server was down: the proxy
	// attached it from what the server last said, or its first request
	// waited for the server (nothing known of it yet); the server came up
	// and the host's session was opened; or a call waited for the server
	// in vain and failed with an error naming it. Each names its client
	// (family Opened) and, when it is a watched host's, the host.
	EvHostAttached EventKind = "host_attached"
	EvHostWaiting  EventKind = "host_waiting"
	EvHostCaughtUp EventKind = "host_caught_up"
	EvCallNotUp    EventKind = "call_not_up"
)

// attach reports whether k is one of the proxy's attach kinds
// (ProxyAttached).
func (k EventKind) attach() bool {
	switch k {
	case EvHostAttached, EvHostWaiting, EvHostCaughtUp, EvCallNotUp:
		return true
	}
	return false
}

// Strategy names a way to heal a lost session, as journaled and as the
// metrics label. The healer's table lists them all; the model names only
// the one it infers by itself.
type Strategy string

// StrategyReconnect: the client reconnected on its own, with no heal under
// way (a recovery's strategy when none was started).
const StrategyReconnect Strategy = "reconnect"

// StrategyHostRestart: the watchdog restarts the host (the last resort).
// The model knows it by name: a host that goes down and comes back while
// it is under way was restarted (host.go).
const StrategyHostRestart Strategy = "host_restart"

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

// KindInfo is one event kind and the family of its typed fields (the
// zero value of its Facts type; nil: the kind has none). Its journal
// lines carry that family's fields, zero or not (a missing client is
// written as "", not left out).
type KindInfo struct {
	Kind  EventKind
	Facts Facts
}

// Kinds is the vocabulary: every event kind, with its family.
// A new kind is one constant and one entry here.
func Kinds() []KindInfo {
	return []KindInfo{
		{EvStarted, nil},
		{EvStopped, nil},
		{EvServerMode, nil},
		{EvSessionNew, Opened{}},
		{EvSessionAtRisk, Risk{}},
		{EvSessionExpired, Ended{}},
		{EvSessionLost, Loss{}},
		{EvSessionEnded, Ended{}},
		{EvRecovered, Recovery{}},
		{EvHostUp, nil},
		{EvHostDown, nil},
		{EvHostRestarted, nil},
		{EvLegacyHeaderRejected, nil},
		{EvWoke, nil},
		{EvWarning, nil},
		{EvTimeoutLearned, nil},
		{EvKeepWarm, Ping{}},
		{EvKeepWarmFailed, Ping{}},
		{EvServerUp, nil},
		{EvServerDown, nil},
		{EvHealStarted, Attempt{}},
		{EvHealFailed, Attempt{}},
		{EvPatchApplied, nil},
		{EvPatchReverted, nil},
		{EvHostAdopted, nil},
		{EvHostReleased, nil},
		{EvNotified, Notice{}},
		{EvStdioExited, Supervised{}},
		{EvStdioRestarted, Supervised{}},
		{EvStdioCallFailed, Supervised{}},
		{EvStdioGaveUp, Supervised{}},
		{EvStdioHung, Supervised{}},
		{EvStdioChanged, Supervised{}},
		{EvHostAttached, Opened{}},
		{EvHostWaiting, Opened{}},
		{EvHostCaughtUp, Opened{}},
		{EvCallNotUp, Opened{}},
	}
}

// FactsOf is the zero value of k's family (nil: none, or k unknown).
func FactsOf(k EventKind) Facts {
	for _, info := range Kinds() {
		if info.Kind == k {
			return info.Facts
		}
	}
	return nil
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

// Carried is the facts ev's journal line carries: ev.Facts when it is of
// its kind's family, else that family's zero value (a kind whose event
// was built without its facts still writes its fields, as zero).
func (ev Event) Carried() Facts {
	zero := FactsOf(ev.Kind)
	if zero != nil && ev.Facts != nil && ev.Facts.family() == zero.family() {
		return ev.Facts
	}
	return zero
}
