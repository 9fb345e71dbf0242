package health

import (
	"fmt"
	"time"
)

// proxied journals a loss the watchdog's proxy met on a host's call. It
// answered the call on a new session: a loss and its recovery at once,
// Took being the host's call across both. Or it could not open one: a
// warning, not an incident, since the host's session with the proxy
// lives on and its next call opens the new one (the server is likely
// down, which liveness reports).
func (s *server) proxied(sig Signal, now time.Time) []Event {
	if !sig.ProxyHealed {
		return []Event{{Time: now, Kind: EvWarning, Server: s.cfg.Name, Session: sig.Session,
			Detail: fmt.Sprintf("the server %s lost a host's session and the proxy could not open a new one yet: %s", s.cfg.Name, sig.Detail)}}
	}
	lost := Event{Time: now, Kind: EvSessionLost, Server: s.cfg.Name, Session: sig.Session, Incident: true,
		Detail: fmt.Sprintf("the server %s lost a host's session; the watchdog's proxy met it on the host's call", s.cfg.Name)}
	took := sig.Took.Truncate(time.Millisecond)
	return []Event{lost, {Time: now, Kind: EvRecovered, Server: s.cfg.Name, Session: sig.Session, NewSession: sig.NewSession,
		Took: took, Strategy: StrategyProxy,
		Detail: fmt.Sprintf("%s recovered after %s: %s", s.cfg.Name, sig.Took.Round(time.Millisecond), sig.Detail)}}
}

// proxyKeep is how long a session a proxy opened is remembered while the
// store does not show it (the proxy's word may come before the store's).
const proxyKeep = time.Minute

// proxyOpened records a session a proxy opened on this server for one of
// its hosts, and forgets those long gone from the store.
func (s *server) proxyOpened(id string, now time.Time) {
	for old, at := range s.viaProxy {
		if _, live := s.sessions[old]; !live && now.Sub(at) > proxyKeep {
			delete(s.viaProxy, old)
		}
	}
	if id != "" {
		s.viaProxy[id] = now
	}
}
