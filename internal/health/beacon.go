package health

import (
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// beacon applies the patched client's own word on what it holds. It is the
// host's word, so it overrides the guess from store and client name: the
// session it names is the host's current session, and a server it does not
// name is one the host holds nothing on.
func (m *Model) beacon(sig BeaconSeen, now time.Time) []Event {
	// A different writer is a new client (the host restarted): what the
	// old one held says nothing about what the new one dropped.
	sameWriter := sig.PID == m.beaconPID
	m.beaconLive, m.beaconPID = sig.Held != nil, sig.PID
	var evs []Event
	for _, name := range m.order {
		s := m.servers[name]
		old := s.held
		if !sameWriter {
			old = nil
		}
		s.held = nil
		if h, ok := sig.Held[name]; ok {
			s.held = &h
		}
		evs = append(evs, m.heldChanged(s, old, now)...)
	}
	if !m.beaconLive {
		// Back to the guess: a replacement the guess can show closes the
		// incident as it would have without a beacon.
		evs = append(evs, m.recoverOnHostUp(now)...)
	}
	return evs
}

// beaconSpeaks reports whether the live beacon is the host's word: its
// writer is the host process the watcher found, or either is unknown. A
// killed host's beacon, read before it was swept, says nothing of the next
// host (soak run 10: its session was pinged for the new host).
func (m *Model) beaconSpeaks() bool {
	return m.beaconLive && (m.beaconPID == 0 || !m.host.running || m.host.pid == 0 || m.beaconPID == m.host.pid)
}

// heldChanged judges one server's beacon entry against the previous one. A
// connected session that the client now reports reconnecting or down is
// lost (the client itself says so); a different connected session while an
// incident is open recovers it once the server is known to have it.
func (m *Model) heldChanged(s *server, old *Held, now time.Time) []Event {
	cur := s.held
	if s.incident != nil {
		if cur != nil && cur.Connected && cur.Session != "" && s.incident.differs(cur.Session, cur.Since) {
			return m.newHeld(s, cur.Session, now)
		}
		return nil
	}
	if old == nil || !old.Connected || old.Session == "" || cur == nil || cur.Connected {
		return nil // a switch between connected sessions is the client's own business
	}
	if !s.healAt.IsZero() && now.Sub(s.healAt) < healActGrace {
		// Our heal's trigger, acted on after the client had already got a
		// new session by itself: it retired a healthy one. Nothing was
		// lost; the client's next session is seen as it comes.
		return nil
	}
	return s.open(now, old.Session, fmt.Sprintf("the host's client reports its session on %s is gone (no longer connected)", s.cfg.Name))
}

// maybeDead: sess is listed by the store of a server that does not answer,
// and was created before it stopped answering: the store may be a killed
// server's last word, its sessions gone with it. (One created since proves
// the server lives.)
func (s *server) maybeDead(sess *session) bool {
	return s.down.is && !sess.created.After(s.down.since)
}

// healActGrace is how long after a heal started the client may still act
// on it: its trigger watcher polls, and it retires the generation after
// its own backoff.
const healActGrace = 5 * time.Second

// newHeld handles a new session the client holds while an incident is
// open: it recovers the incident when the server is known to have the
// session (its store lists it); otherwise the session must first answer a
// ping (Verify). One known only from the last run's saved state must
// answer too: it may have ended while the daemon was down; and so must one
// the store lists while the server is down: the store may be a killed
// server's last word, its sessions gone with it.
func (m *Model) newHeld(s *server, id string, now time.Time) []Event {
	if sess, known := s.sessions[id]; known && !sess.restored && !s.maybeDead(sess) {
		return s.recover(now, "the host's client holds a new session the server knows", id)
	}
	s.incident.candidate = id
	return nil
}

// Verify lists the sessions whose answer to a ping would end an open
// incident: a new session the client holds that the server's store does not
// (yet) show. The daemon pings them like keep-warm targets.
func (m *Model) Verify(now time.Time) []WarmTarget {
	if !m.hostRunning() {
		return nil // a ping would keep a dead host's session alive
	}
	var out []WarmTarget
	for _, name := range m.order {
		s := m.servers[name]
		if s.incident == nil || s.incident.candidate == "" {
			continue
		}
		out = append(out, WarmTarget{Server: name, SessionID: s.incident.candidate, Timeout: s.timeout()})
	}
	return out
}

// heldTarget is the keep-warm target for a session the beacon names that
// the store does not show (a server without a store): its idleness comes
// from the client's own last request.
func (s *server) heldTarget(now time.Time) (WarmTarget, bool) {
	h := s.held
	if h == nil || !h.Connected || h.Session == "" {
		return WarmTarget{}, false
	}
	last := h.Since
	if h.LastRequest.After(last) {
		last = h.LastRequest
	}
	if last.IsZero() || last.After(now) {
		last = now
	}
	return WarmTarget{Server: s.cfg.Name, SessionID: h.Session, Idle: now.Sub(last), Timeout: s.timeout(),
		ActivityKnown: !h.LastRequest.IsZero()}, true
}

// source says where the judgement of s's host session comes from.
func (m *Model) source(s *server) IdentitySource {
	if s.cfg.ProxyURL != "" {
		return SourceProxy
	}
	if m.beaconSpeaks() {
		return SourceBeacon
	}
	return SourceInferred
}

// sourced marks the events about the host's session with where the model
// knew that session from, or, for a ping whose sender named the session,
// where the sender had it (pinged: the ping's server, namedBy: its
// sender; "" for anything else). An event sourced already (sourcedFrom) keeps
// its source.
func (m *Model) sourced(evs []Event, pinged string, namedBy IdentitySource) {
	for i := range evs {
		ev := &evs[i]
		m.stampHost(ev)
		s, ok := m.servers[ev.Server]
		if !ok || !aboutHostSession(*ev) || sourceOf(ev.Facts) != "" {
			continue
		}
		src := m.source(s)
		if namedBy != "" && ev.Server == pinged && s.cfg.ProxyURL == "" {
			src = namedBy
		}
		ev.Facts = sourcedAs(ev.Carried(), src)
	}
}

// sourcedFrom marks the events about the host's session with src: where
// the model had that session from when it judged them, which a later
// Apply or Tick that journals them keeps.
func (m *Model) sourcedFrom(evs []Event, src IdentitySource) []Event {
	for i := range evs {
		ev := &evs[i]
		m.stampHost(ev)
		if aboutHostSession(*ev) {
			ev.Facts = sourcedAs(ev.Carried(), src)
		}
	}
	return evs
}

// stampHost names the model's host on an event about it (its process, its
// session, its heal), so that with several hosts watched each line says
// whose it is. An event that names a host already keeps it.
func (m *Model) stampHost(ev *Event) {
	if m.cfg.HostName == "" || !(aboutHostSession(*ev) || aboutHost(ev.Kind)) {
		return
	}
	if client := ClientOf(ev.Facts); client != "" && m.cfg.ClientName != "" && !host.ClientMatch(m.cfg.ClientName, client) {
		return // another client's session (the proxy's word on a host not watched)
	}
	if _, ok := ev.Extra["host"]; ok {
		return
	}
	if ev.Extra == nil {
		ev.Extra = map[string]any{}
	}
	ev.Extra["host"] = m.cfg.HostName
}

func aboutHost(k EventKind) bool {
	switch k {
	case EvHostUp, EvHostDown, EvHostRestarted, EvHealStarted, EvHealFailed:
		return true
	}
	return false
}

func aboutHostSession(ev Event) bool {
	switch ev.Kind {
	case EvSessionLost:
		l, _ := ev.Facts.(Loss)
		return l.Incident
	case EvRecovered, EvKeepWarm, EvKeepWarmFailed, EvSessionAtRisk:
		return true
	}
	return false
}
