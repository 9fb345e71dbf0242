package health

import (
	"fmt"
	"time"
)

// Outcome is what a request of the watchdog's own (a keep-warm ping, a
// liveness check) learned about a server or session.
type Outcome int

// Outcomes.
const (
	OutcomeAlive     Outcome = iota + 1 // answered; the session (if any) lives
	OutcomeLost                         // the server no longer knows the session
	OutcomeStateless                    // a 2026-07-28 server: no session to lose, no ping
	OutcomeDown                         // refused, timed out, 5xx: down or slow, never "lost"
	OutcomeAuth                         // 401/403: credentials needed
	OutcomeOther                        // anything else (redirect, unexpected answer)
)

// WarmTarget is a session the healer may keep warm: the host's current
// session on a stateful server, while the host runs.
type WarmTarget struct {
	Server        string
	SessionID     string
	Idle          time.Duration
	Timeout       time.Duration
	ActivityKnown bool // Idle is measured, not guessed from when we first saw it
	// NamedBy: who named the session, when the pinger took it from there
	// itself (the start's pings, from the beacon, before the model has
	// read it); "": the model's targets, judged by its own word.
	NamedBy IdentitySource
}

// WarmTargets lists the sessions worth keeping warm now. Sessions of other
// clients, of a host that is not running, and of servers in an open
// incident are never kept alive: abandoned sessions must be allowed to expire.
func (m *Model) WarmTargets(now time.Time) []WarmTarget {
	if m.cfg.HostWatched && !m.host.known || !m.hostRunning() {
		return nil // a dead host's sessions are left to expire
	}
	var out []WarmTarget
	for _, name := range m.order {
		s := m.servers[name]
		if s.incident != nil || s.era.stateless || s.timeout() <= 0 {
			continue
		}
		if cur := m.currentSession(s); cur != nil {
			out = append(out, WarmTarget{Server: name, SessionID: cur.id, Idle: s.idle(cur, now), Timeout: s.timeout(),
				ActivityKnown: cur.knownActive})
		} else if t, ok := s.heldTarget(now); ok && m.beaconSpeaks() {
			out = append(out, t)
		}
	}
	return out
}

// keepWarmResult applies the outcome of a keep-warm ping.
func (m *Model) keepWarmResult(s *server, sig KeepWarmAnswered, now time.Time) []Event {
	took := sig.Took.Truncate(time.Millisecond)
	sess := s.sessions[sig.Session]
	switch sig.Outcome {
	case OutcomeAlive:
		if sess != nil {
			sess.lastActivity, sess.knownActive, sess.atRisk, sess.restored = now, true, false, false
		}
		if s.incident != nil && s.incident.candidate == sig.Session {
			return s.recover(now, "the host's client holds a new session that answers", sig.Session)
		}
		return []Event{{Time: now, Kind: EvKeepWarm, Server: s.cfg.Name, Session: sig.Session, Facts: Ping{Took: took},
			Detail: fmt.Sprintf("pinged the host's session on %s (%s)", s.cfg.Name, sig.Took.Round(time.Millisecond))}}
	case OutcomeLost:
		evs := []Event{{Time: now, Kind: EvKeepWarmFailed, Server: s.cfg.Name, Session: sig.Session, Facts: Ping{Took: took},
			Detail: fmt.Sprintf("ping of the host's session on %s: %s", s.cfg.Name, sig.Detail)}}
		return append(evs, s.open(now, sig.Session, fmt.Sprintf("session on %s lost: a keep-warm ping was answered %s", s.cfg.Name, sig.Detail))...)
	case OutcomeStateless:
		return s.becomeStateless(now, sig.Detail)
	}
	evs := []Event{{Time: now, Kind: EvKeepWarmFailed, Server: s.cfg.Name, Session: sig.Session, Facts: Ping{Took: took},
		Detail: fmt.Sprintf("ping of the host's session on %s failed: %s", s.cfg.Name, sig.Detail)}}
	if sig.Outcome == OutcomeDown {
		evs = append(evs, s.setDown(true, now, sig.Detail)...)
	}
	return evs
}

// liveness applies a liveness check (a request without a session).
func (m *Model) liveness(s *server, sig LivenessAnswered, now time.Time) []Event {
	evs := s.learnEra(sig.Era, now)
	if sig.Answer != "" {
		s.asked.lostAnswer = sig.Answer
	} else {
		s.asked.echoLeft = false // no lost-session answer: the question left no loss line to echo
	}
	switch sig.Outcome {
	case OutcomeDown:
		return append(evs, s.setDown(true, now, sig.Detail)...)
	case OutcomeStateless:
		return append(append(evs, s.setDown(false, now, "")...), s.becomeStateless(now, sig.Detail)...)
	}
	return append(evs, s.setDown(false, now, "")...)
}

func (s *server) setDown(down bool, now time.Time, detail string) []Event {
	if s.down.is == down {
		return nil
	}
	s.down.is = down
	if down {
		s.down.since, s.era.stale = now, true // it may come back in another era
		return []Event{{Time: now, Kind: EvServerDown, Server: s.cfg.Name, Detail: fmt.Sprintf("%s is not answering: %s", s.cfg.Name, detail)}}
	}
	return []Event{{Time: now, Kind: EvServerUp, Server: s.cfg.Name, Detail: fmt.Sprintf("%s answers", s.cfg.Name)}}
}

func (s *server) becomeStateless(now time.Time, detail string) []Event {
	if s.era.stateless {
		return nil
	}
	s.era.stateless = true
	extra := map[string]any{"mode": string(Stateless)}
	if s.era.era != "" {
		extra["era"] = s.era.era
	}
	return []Event{{Time: now, Kind: EvServerMode, Server: s.cfg.Name, Extra: extra,
		Detail: fmt.Sprintf("%s speaks the 2026-07-28 protocol: no session to lose, nothing to keep warm (%s)", s.cfg.Name, detail)}}
}

// learnEra takes the era a check learned ("": none). A modern-only server
// has no sessions (becomeStateless says so when the check's answer does);
// one that serves the legacy era again after being modern-only (a
// restart) has sessions to keep warm again, and the journal says so.
func (s *server) learnEra(era string, now time.Time) []Event {
	if era == "" {
		return nil
	}
	s.era.era, s.era.stale = era, false
	if era != EraLegacy || !s.era.stateless {
		return nil
	}
	s.era.stateless = false
	return []Event{{Time: now, Kind: EvServerMode, Server: s.cfg.Name, Extra: map[string]any{"mode": string(s.mode()), "era": era},
		Detail: fmt.Sprintf("%s serves the legacy protocol again (it restarted): its sessions are kept warm again", s.cfg.Name)}}
}

// proxyBridging journals, once a run, that the server's proxy bridges the
// protocol eras: the server is modern-only, the proxy serves its legacy
// hosts the legacy protocol over it.
func (s *server) proxyBridging(now time.Time) []Event {
	s.era.era, s.era.stale = EraModernOnly, false
	if s.era.bridgeTold {
		return nil
	}
	s.era.bridgeTold, s.era.stateless = true, true
	return []Event{{Time: now, Kind: EvServerMode, Server: s.cfg.Name,
		Extra:  map[string]any{"mode": string(Stateless), "era": EraModernOnly, "bridged": true},
		Detail: fmt.Sprintf("%s serves only the 2026-07-28 protocol; the watchdog's proxy bridges its legacy hosts over it (it answers their initialize and ping itself and sends every other request on in the 2026-07-28 shape, never twice)", s.cfg.Name)}}
}

// Era is the server's protocol era as last learned, "" while unknown or
// since the server was down (it may come back in another era).
func (m *Model) Era(server string) string {
	s, ok := m.servers[server]
	if !ok || s.era.stale {
		return ""
	}
	return s.era.era
}

// healStarted marks the open incident as being healed by strategy.
func (s *server) healStarted(sig HealStarted, now time.Time) []Event {
	s.healAt = now
	if s.incident != nil {
		s.incident.healing, s.incident.due = sig.Strategy, time.Time{}
		if sig.Within > 0 {
			s.incident.due = now.Add(sig.Within)
		}
	}
	return []Event{{Time: now, Kind: EvHealStarted, Server: s.cfg.Name, Facts: Attempt{Strategy: sig.Strategy},
		Detail: fmt.Sprintf("healing %s: %s", s.cfg.Name, sig.Detail)}}
}

// healOverdue fails a strategy whose deadline passed without recovery.
func (s *server) healOverdue(now time.Time) []Event {
	if s.incident == nil || s.incident.due.IsZero() || now.Before(s.incident.due) {
		return nil
	}
	strategy := s.incident.healing
	return s.healFailed(strategy, fmt.Sprintf("%s did not bring back a session on %s in time; restart the host yourself", strategy, s.cfg.Name), now)
}

// healFailed ends the strategy under way: it failed, detail says what to do.
func (s *server) healFailed(strategy Strategy, detail string, now time.Time) []Event {
	if s.incident != nil {
		s.incident.healing, s.incident.due = "", time.Time{}
	}
	return []Event{{Time: now, Kind: EvHealFailed, Server: s.cfg.Name, Facts: Attempt{Strategy: strategy},
		Detail: detail}}
}

// proxyAttached journals how the proxy stood in for the server, down when
// a host started (a journal line, no state: the liveness checks say when
// the server is up or down).
func (s *server) proxyAttached(o ProxyAttached, now time.Time) []Event {
	if !o.Kind.attach() {
		return nil
	}
	extra := map[string]any{}
	if o.Host != "" {
		extra["host"] = o.Host
	}
	if !o.Known.IsZero() {
		extra["known"] = o.Known.UTC().Format(time.RFC3339)
	}
	if o.Took > 0 {
		extra["took_ms"] = o.Took.Milliseconds()
	}
	return []Event{{Time: now, Kind: o.Kind, Server: s.cfg.Name, Facts: Opened{Client: o.Client}, Extra: extra, Detail: o.Detail}}
}
