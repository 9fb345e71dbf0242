package health

import "time"

// hostWords is what the model knows of how the host meets a lost session.
// Its servers share it: a loss of the host's session says what the host
// will do, and a host seen to heal itself is judged so from then on.
type hostWords struct {
	name        string
	selfHealing bool       // its profile says it opens a new session by itself
	seen        bool       // it was seen to, with no heal of the watchdog's
	host        *hostState // the model's: which run of the host lost a session
}

// heals reports whether the host opens a new session by itself.
func (w *hostWords) heals() bool { return w.selfHealing || w.seen }

// nextCall says what the host's next call meets after a loss.
func (w *hostWords) nextCall() string {
	if w.heals() {
		return "it re-initializes on its next call"
	}
	return "its next call will fail"
}

// Journal values of on_loss and on_loss_source.
const (
	onLossStuck       = "stuck"
	onLossSelfHealing = "self-healing"
	onLossFromProfile = "profile"
	onLossFromSeen    = "seen"
)

// extra is the host fields of a loss of the host's session: which host,
// what it does on a loss, and how that is known.
func (w *hostWords) extra() map[string]any {
	onLoss, from := onLossStuck, onLossFromProfile
	switch {
	case w.selfHealing:
		onLoss = onLossSelfHealing
	case w.seen:
		onLoss, from = onLossSelfHealing, onLossFromSeen
	}
	out := map[string]any{"on_loss": onLoss, "on_loss_source": from}
	if w.name != "" {
		out["host"] = w.name
	}
	return out
}

// HostHeals reports whether the host opens a new session by itself after
// a loss (its profile says so, or it was seen to): the heal ladder then
// waits for that session instead of acting.
func (m *Model) HostHeals() bool { return m.words.heals() }

// openedByItself closes s's incident on the host's new session sess. A
// host that opened it with no heal of the watchdog's under way, in the run
// that lost the session, heals itself: it is judged so from now on (a
// patchable host's healing is its patch's, and is never learned).
func (m *Model) openedByItself(s *server, sess *session, now time.Time) []Event {
	in := s.incident
	learned := !m.cfg.Patchable && in.healing == "" && !m.words.heals() && in.hostPID != 0 && m.host.running && m.host.pid == in.hostPID
	if !learned {
		return s.recover(now, hostOpenedNew, sess.id)
	}
	m.words.seen = true
	if s.flap.on {
		s.flapHealed(now)
		return nil
	}
	return s.closeIncident(now, now, hostOpenedNew+"; "+m.cfg.HostName+" opened it by itself, so it is taken to heal itself from now on",
		sess.id, map[string]any{"on_loss": onLossSelfHealing, "on_loss_source": onLossFromSeen})
}
