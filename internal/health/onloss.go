package health

import (
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// hostWords is what the model knows of how the host meets a lost session.
// Its servers share it: a loss of the host's session says what the host
// will do, and a host seen to heal itself is judged so from then on. What
// a host does may depend on how the server says the session is gone (a
// 404 as the spec says, with a JSON-RPC error or plain text, or a 400):
// each server's answer is its own.
type hostWords struct {
	name      string
	client    string               // its client's name (a pattern: host.ClientMatch)
	behaviour host.Behaviour       // its profile's table
	seen      map[host.Answer]bool // it was seen to heal, with no heal of the watchdog's, after that answer
	host      *hostState           // the model's: which run of the host lost a session
	patched   *bool                // the model's beaconLive: the patched client speaks
}

// byProfile: the host's profile says it heals a loss answered with a.
func (w *hostWords) byProfile(a host.Answer) bool { return w.behaviour.Heals(a) }

// heals reports whether the host opens a new session by itself after a
// loss its server answers with a.
func (w *hostWords) heals(a host.Answer) bool {
	return w.byProfile(a) || w.seen[a]
}

// patchHeals: the host's patched client speaks (its beacon is live), and
// the patch re-initializes on the next call whatever the profile says.
func (w *hostWords) patchHeals() bool { return w.patched != nil && *w.patched }

// nextCall says what the host's next call meets after a loss its server
// answers with a.
func (w *hostWords) nextCall(a host.Answer) string {
	r := w.behaviour.On(a)
	switch {
	case w.patchHeals():
		return "its patched client re-initializes on its next call"
	case w.byProfile(a) && r == host.Reinitializes:
		return "it re-initializes, but its next call fails first"
	case w.heals(a):
		return "it re-initializes on its next call"
	case a != "" && w.behaviour.HealsAny():
		return fmt.Sprintf("its next call will %s: it re-initializes after %s, but this server answers a lost session with %s",
			stuckVerb(r), w.behaviour.Healed(), a.Words())
	}
	return "its next call will " + stuckVerb(r)
}

// stuckVerb is what a stuck host's next call does.
func stuckVerb(r host.Reaction) string {
	if r == host.Hangs {
		return "hang until the host gives up on it"
	}
	return "fail"
}

// Journal values of on_loss and on_loss_source.
const (
	onLossStuck       = "stuck"
	onLossSelfHealing = "self-healing"
	onLossFromProfile = "profile"
	onLossFromSeen    = "seen"
	onLossFromPatch   = "patch"
)

// extra is the host fields of a loss of the host's session on a server
// answering a: which host, what it does on the loss, and how that is
// known.
func (w *hostWords) extra(a host.Answer) map[string]any {
	onLoss, from := onLossStuck, onLossFromProfile
	switch {
	case w.patchHeals():
		onLoss, from = onLossSelfHealing, onLossFromPatch
	case w.byProfile(a):
		onLoss = onLossSelfHealing
	case w.seen[a]:
		onLoss, from = onLossSelfHealing, onLossFromSeen
	}
	out := map[string]any{"on_loss": onLoss, "on_loss_source": from}
	if w.name != "" {
		out["host"] = w.name
	}
	return out
}

// HostHeals reports whether the host opens a new session by itself after
// a loss on server (its profile says so for how that server answers a
// lost session, or it was seen to): the heal ladder then waits for that
// session instead of acting. A patched client's healing is not counted:
// the watchdog's trigger hurries it.
func (m *Model) HostHeals(server string) bool {
	s, ok := m.servers[server]
	return ok && m.words.heals(s.asked.lostAnswer)
}

// nextCall and lossExtra are the host's words for a loss on s.
func (s *server) nextCall() string          { return s.words.nextCall(s.asked.lostAnswer) }
func (s *server) lossExtra() map[string]any { return s.words.extra(s.asked.lostAnswer) }

// openedByItself closes s's incident on the host's new session sess. A
// host that opened it with no heal of the watchdog's under way, in the run
// that lost the session, heals itself: it is judged so from now on (a
// patchable host's healing is its patch's, and is never learned).
func (m *Model) openedByItself(s *server, sess *session, now time.Time) []Event {
	in := s.incident
	learned := !m.cfg.Patchable && in.healing == "" && !m.words.heals(s.asked.lostAnswer) && in.hostPID != 0 && m.host.running && m.host.pid == in.hostPID
	if !learned {
		return s.recover(now, hostOpenedNew, sess.id)
	}
	m.words.seen[s.asked.lostAnswer] = true
	if s.flap.on {
		s.flapHealed(now)
		return nil
	}
	return s.closeIncident(now, now, hostOpenedNew+"; "+m.cfg.HostName+" opened it by itself, so it is taken to heal itself from now on",
		sess.id, map[string]any{"on_loss": onLossSelfHealing, "on_loss_source": onLossFromSeen})
}
