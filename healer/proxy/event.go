package proxy

import "time"

// SightingKind is what the proxy saw.
type SightingKind int

const (
	// EvSession: a host opened a session (the server's id in Upstream).
	EvSession SightingKind = iota + 1
	// EvRecovered: the server had lost the host's session; the proxy
	// opened a new one and answered the host's call on it. Took is the
	// host's call across the recovery.
	EvRecovered
	// EvRecoverFailed: the server lost the host's session and a new one
	// could not be opened; the host got the server's answer.
	EvRecoverFailed
	// EvReleased: a host silent for longer than the idle timeout; its
	// upstream session was ended with DELETE (a later call opens another).
	EvReleased
	// EvEnded: the host ended its session (DELETE).
	EvEnded
	// EvLegacyHeaderDropped: a session header a host sent to a server
	// without sessions was dropped.
	EvLegacyHeaderDropped
	// EvUpstream: the proxy opened Upstream for a host's session in place
	// of a lost or released one. With EvSession, it names every session
	// the proxy opens: another watcher of the same server must not take
	// them for its own host's.
	EvUpstream
	// EvRefused: a connection of another local user (UID; peer.Unknown
	// when its owner could not be found) was closed before a byte of it
	// was read.
	EvRefused
	// EvOAuth: the server answered a host's request with an OAuth
	// challenge (401 naming RFC 9728 metadata): its tokens are bound to
	// its own URL, so a host signing in through the proxy fails. Once per
	// proxy's run.
	EvOAuth
	// EvBridging: the server serves only the 2026-07-28 protocol and the
	// proxy serves its legacy hosts over it; said once per era change.
	EvBridging
	// EvAttached: a host started while the server was down (its
	// connection refused or unreachable), and the proxy answered its
	// initialize (or server/discover) from the last-known server: what
	// the server said at Known. Its calls wait for the server.
	EvAttached
	// EvAttachedUp: the server came up for a host that attached while it
	// was down: the proxy opened its upstream session (Upstream) and told
	// the host where its lists changed.
	EvAttachedUp
	// EvAwaiting: a host's first contact (initialize, server/discover)
	// found the server down and nothing known of it: it waits for the
	// server, at most Options.InitWait.
	EvAwaiting
	// EvNotUp: a host's request waited for a server that was down, for
	// Took, in vain; the host got an error that names the server.
	EvNotUp
)

var kindNames = [...]string{"", "session", "recovered", "recover_failed", "released", "ended", "legacy_header_dropped", "upstream", "refused", "oauth", "bridging",
	"attached_from_known", "server_up_for_attached", "awaiting_server", "server_not_up"}

func (k SightingKind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "unknown"
	}
	return kindNames[k]
}

// Sighting is one thing the proxy saw. Ids are full: whoever writes them out
// masks them.
type Sighting struct {
	Kind        SightingKind
	Server      string
	Time        time.Time
	HostSession string // the id the host holds (the proxy's)
	Upstream    string // the server's session now
	OldUpstream string // EvRecovered, EvRecoverFailed: the one lost
	Client      string // clientInfo.name of the host's initialize
	Took        time.Duration
	UID         int // EvRefused: the connection's owner
	// Known: EvAttached: when the server said what the host was
	// answered from.
	Known  time.Time
	Detail string // one sentence; no ids, no bodies
}

// ParseSightingKind is the kind String names; false for a name this build
// does not know.
func ParseSightingKind(name string) (SightingKind, bool) {
	for k, n := range kindNames {
		if k > 0 && n == name {
			return SightingKind(k), true
		}
	}
	return 0, false
}
