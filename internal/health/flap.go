package health

import (
	"fmt"
	"time"
)

// A host session lost again and again (a client in a reconnect loop, a
// log flood) would make an incident, and a bubble, per round: a flood of
// a million lines made half a million, and rotated the journal's history
// away. Past flapLimit incidents within flapWindow, the rounds become one
// flapping incident: the loss that starts it is journaled, later losses
// and recoveries are counted into it, and it ends with one recovered once
// no loss came for flapQuiet after the last recovery. The limit is far
// above what real trouble does: the chaos soak, killing servers and
// sessions on purpose, opens at most a dozen incidents a minute on one
// server, and each of those must be journaled and judged on its own.
const (
	flapLimit  = 40
	flapWindow = time.Minute
	flapQuiet  = 30 * time.Second
)

// flap follows how often a server's incidents open.
type flap struct {
	recent []time.Time // when the last incidents opened, oldest first, at most flapLimit
	on     bool        // the open incident is a flapping one
	losses int         // losses counted into it, its first included
	heals  int         // recoveries counted into it
	calm   time.Time   // the last recovery with no loss since; zero while lost
	first  time.Time   // its first loss
}

// opened notes an incident opening at now and reports whether the server
// is flapping: flapLimit incidents already opened within flapWindow.
func (f *flap) opened(now time.Time) bool {
	flapping := len(f.recent) == flapLimit && now.Sub(f.recent[0]) < flapWindow
	f.recent = append(f.recent, now)
	if len(f.recent) > flapLimit {
		f.recent = f.recent[1:]
	}
	return flapping
}

// lostAgain counts a loss reported while the incident is open: the same
// loss told again, or, when flapping, the next round.
func (s *server) lostAgain(now time.Time) {
	in := s.incident
	in.repeats++
	in.lastRepeat = now
	if s.flap.on {
		s.flap.losses++
		s.flap.calm = time.Time{}
	}
}

// openFlapping starts a flapping incident.
func (s *server) openFlapping(now time.Time, sessionID, detail string) []Event {
	s.flap.on, s.flap.losses, s.flap.heals, s.flap.calm, s.flap.first = true, 1, 0, time.Time{}, now
	s.incident = &incident{since: now, session: sessionID}
	detail = fmt.Sprintf("%s; lost %d times within %s: the session is flapping, so losses and recoveries are counted into this incident until none comes for %s",
		detail, flapLimit+1, flapWindow, flapQuiet)
	return []Event{{Time: now, Kind: EvSessionLost, Server: s.cfg.Name, Session: sessionID, Detail: detail,
		Facts: Loss{Incident: true}, Extra: map[string]any{"flapping": true}}}
}

// flapHealed counts a recovery into a flapping incident, which stays
// open until calm.
func (s *server) flapHealed(now time.Time) {
	s.flap.heals++
	s.flap.calm = now
	s.incident.healing, s.incident.due, s.incident.candidate = "", time.Time{}, ""
}

// flapOver ends a flapping incident that has been calm for flapQuiet.
func (s *server) flapOver(now time.Time) []Event {
	if !s.flap.on || s.incident == nil || s.flap.calm.IsZero() || now.Sub(s.flap.calm) < flapQuiet {
		return nil
	}
	f := s.flap
	s.flap.on = false
	return s.closeIncident(now, f.calm, fmt.Sprintf("the session flapped: lost %d times and recovered %d times from %s to %s, and no loss since",
		f.losses, f.heals, f.first.UTC().Format(time.TimeOnly), f.calm.UTC().Format(time.TimeOnly)), "",
		map[string]any{"losses": f.losses, "recoveries": f.heals})
}
