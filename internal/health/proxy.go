package health

import (
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// proxied journals a loss the watchdog's proxy met on a host's call. It
// answered the call on a new session: a loss and its recovery at once,
// Took being the host's call across both. Or it could not open one: a
// warning, not an incident, since the host's session with the proxy
// lives on and its next call opens the new one (the server is likely
// down, which liveness reports).
func (s *server) proxied(sig ProxyHealed, now time.Time) []Event {
	if !sig.Healed {
		return []Event{{Time: now, Kind: EvWarning, Server: s.cfg.Name, Session: sig.Session,
			Detail: fmt.Sprintf("the server %s lost a host's session and the proxy could not open a new one yet: %s", s.cfg.Name, sig.Detail)}}
	}
	who, extra := s.words.proxiedHost(sig.Client)
	lost := Event{Time: now, Kind: EvSessionLost, Server: s.cfg.Name, Session: sig.Session, Facts: Loss{Incident: true, Client: sig.Client}, Extra: extra,
		Detail: fmt.Sprintf("the server %s lost %s session; the watchdog's proxy met it on the host's call", s.cfg.Name, who)}
	took := sig.Took.Truncate(time.Millisecond)
	return []Event{lost, {Time: now, Kind: EvRecovered, Server: s.cfg.Name, Session: sig.Session, Extra: copyExtra(extra),
		Facts:  Recovery{NewSession: sig.NewSession, Took: took, Strategy: StrategyProxy, Client: sig.Client},
		Detail: fmt.Sprintf("%s recovered after %s: %s", s.cfg.Name, sig.Took.Round(time.Millisecond), sig.Detail)}}
}

// proxiedHost names the host whose session the proxy healed, by the
// client name of its initialize: the model's own host, another known
// host (whose name the events carry then), or "a host" when nothing
// says whose (the events then name no host rather than the wrong one:
// stampHost leaves an event of another client alone).
func (w *hostWords) proxiedHost(client string) (who string, extra map[string]any) {
	switch p, ok := host.ByClient(client); {
	case w == nil || client == "" || host.ClientMatch(w.client, client):
		return "a host's", nil
	case ok:
		return p.Name + "'s", map[string]any{"host": p.Name}
	}
	return "a host's (client " + client + ")", nil
}

func copyExtra(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// proxyRemember bounds the sessions a proxy's word is kept for, per
// server: a kept-warm upstream session may live for days, so the word is
// never forgotten by age, only the oldest when a proxy has opened more.
const proxyRemember = 1024

// proxyOpened records a session a proxy opened on this server for one of
// its hosts.
func (s *server) proxyOpened(id string, now time.Time) {
	noteBounded(s.proxy.viaProxy, id, now, proxyRemember)
}

// proxyReleased records a session a proxy of this server ends itself.
func (s *server) proxyReleased(id string, now time.Time) {
	noteBounded(s.proxy.releasedByProxy, id, now, goneMemory)
}

// noteBounded records id at now in m ("" is never recorded), dropping the
// oldest entry once m holds more than limit.
func noteBounded(m map[string]time.Time, id string, now time.Time, limit int) {
	if id == "" {
		return
	}
	m[id] = now
	if len(m) <= limit {
		return
	}
	oldest, at := "", now
	for other, t := range m {
		if !t.After(at) {
			oldest, at = other, t
		}
	}
	delete(m, oldest)
}

// releasedEvent is the end of a session the proxy said it ended itself:
// the server's own idle timeout did not end it, whatever its idle time.
func (s *server) releasedEvent(sess *session, idle time.Duration, now time.Time) (Event, bool) {
	if _, ok := s.proxy.releasedByProxy[sess.id]; !ok {
		return Event{}, false
	}
	delete(s.proxy.releasedByProxy, sess.id)
	return s.endEvent(EvSessionEnded, sess, idle, now,
		fmt.Sprintf("ended after %s idle: the watchdog's proxy ended it for its host", idle.Round(time.Second))), true
}

// viaProxySession: a proxy of the same server said it opened id.
func (s *server) viaProxySession(id string) bool {
	_, ok := s.proxy.viaProxy[id] // proxyOpened never records ""
	return ok
}
