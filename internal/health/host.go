package health

import (
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// A session created before the host started is not the host's: it belongs
// to a predecessor (perhaps one that died a moment ago) and must be let go,
// not kept warm. The slack is how early a start time can read: a second
// for a start counted from a boot time truncated to the second, a few clock
// ticks for a precise one (HostUp.Began).
const (
	hostStartSlack        = time.Second
	hostPreciseStartSlack = 100 * time.Millisecond
)

func (m *Model) hostUp(sig HostUp, now time.Time) []Event {
	prev := m.host
	m.host = hostState{known: true, running: true, pid: sig.PID, started: sig.Started, began: sig.Began}
	extra := map[string]any{"pid": sig.PID}
	switch {
	case m.cfg.OneShot && prev.running && (sig.Restarted || prev.pid != sig.PID):
		// One process per prompt: a new pid is a new run, not a restart.
		evs := []Event{{Time: now, Kind: EvHostUp, Extra: extra,
			Detail: fmt.Sprintf("%s runs again (pid %d, a new run; pid %d was the one before)", m.cfg.HostName, sig.PID, prev.pid)}}
		return append(evs, m.recoverOnHostUp(now)...)
	case prev.running && (sig.Restarted || prev.pid != sig.PID):
		m.restart = hostRestart{}
		evs := []Event{{Time: now, Kind: EvHostRestarted, Extra: extra,
			Detail: fmt.Sprintf("%s restarted (pid %d, was %d)", m.cfg.HostName, sig.PID, prev.pid)}}
		return append(evs, m.recoverOnHostUp(now)...)
	case prev.running:
		return nil
	case m.restart.downAt(now) != 0:
		// The watcher saw the old process gone before the new one came.
		evs := []Event{{Time: now, Kind: EvHostRestarted, Extra: extra,
			Detail: fmt.Sprintf("%s restarted by the watchdog (pid %d, was %d)", m.cfg.HostName, sig.PID, m.restart.down)}}
		m.restart = hostRestart{}
		return append(evs, m.recoverOnHostUp(now)...)
	}
	detail := fmt.Sprintf("%s is running (pid %d)", m.cfg.HostName, sig.PID)
	if m.cfg.OneShot {
		detail = fmt.Sprintf("%s is running (pid %d; it runs one process per prompt)", m.cfg.HostName, sig.PID)
	}
	evs := []Event{{Time: now, Kind: EvHostUp, Extra: extra, Detail: detail}}
	return append(evs, m.recoverOnHostUp(now)...)
}

// hostOpenedNew is how an incident ends when the host's new session shows.
const hostOpenedNew = "the host opened a new session"

// recoverOnHostUp closes the incidents the new host has already healed: its
// sessions are often seen a moment before the process watcher sees it, when
// no session could yet count as the host's.
func (m *Model) recoverOnHostUp(now time.Time) []Event {
	var evs []Event
	for _, name := range m.order {
		s := m.servers[name]
		if s.incident == nil {
			continue
		}
		if cur := m.currentSession(s); cur != nil && !cur.restored && s.incident.differs(cur.id, cur.created) {
			evs = append(evs, s.recover(now, hostOpenedNew, cur.id)...)
		}
	}
	return evs
}

func (m *Model) hostDown(now time.Time) []Event {
	was := m.host
	m.host = hostState{known: true}
	if !was.running {
		return nil
	}
	detail := fmt.Sprintf("%s (pid %d) is no longer running", m.cfg.HostName, was.pid)
	switch {
	case m.cfg.OneShot:
		detail = fmt.Sprintf("%s's run (pid %d) ended", m.cfg.HostName, was.pid)
	case m.restart.stopped(was.pid, now):
		detail = fmt.Sprintf("%s (pid %d) stopped: the watchdog is restarting it", m.cfg.HostName, was.pid)
	}
	return []Event{{Time: now, Kind: EvHostDown, Extra: map[string]any{"pid": was.pid}, Detail: detail}}
}

// hostRunning is true unless a process watcher said the host is not running:
// with no watcher configured we assume the host is there. A beacon does not
// outvote the watcher: a killed client's beacon lingers until it is swept,
// and its session must not be pinged meanwhile.
func (m *Model) hostRunning() bool { return !m.host.known || m.host.running }

func (m *Model) isHostClient(s *server, sess *session) bool {
	return host.ClientMatch(m.cfg.ClientName, sess.client) && !s.viaProxySession(sess.id)
}

// currentSession is the host's session on s: the one its live beacon names
// (nil while the server's store does not show it, or when the beacon names
// nothing on s); without a beacon, the guess: the newest of its client,
// opened since the host started. Nil when the host is not running.
func (m *Model) currentSession(s *server) *session {
	if !m.hostRunning() || s.cfg.ProxyURL != "" {
		return nil
	}
	if m.beaconSpeaks() {
		if s.held == nil || s.held.Session == "" {
			return nil
		}
		return s.sessions[s.held.Session]
	}
	var cur *session
	for _, sess := range s.sessions {
		if !m.isHostClient(s, sess) {
			continue
		}
		if m.openedBeforeHost(sess) {
			continue
		}
		if cur == nil || sess.created.After(cur.created) || (sess.created.Equal(cur.created) && sess.id > cur.id) {
			cur = sess
		}
	}
	return cur
}

// openedBeforeHost: sess was created before the running host started.
func (m *Model) openedBeforeHost(sess *session) bool {
	switch {
	case !m.host.running:
		return false
	case !m.host.began.IsZero():
		return sess.created.Before(m.host.began.Add(-hostPreciseStartSlack))
	case !m.host.started.IsZero():
		return sess.created.Before(m.host.started.Add(-hostStartSlack))
	}
	return false
}

// HostProcess is the host process the model believes runs: its pid and
// start time, and whether it runs at all as far as the watcher said.
func (m *Model) HostProcess() (pid int32, started time.Time, running bool) {
	return m.host.pid, m.host.started, m.host.running
}

// currentID is the full id of the host's session on s: the beacon's word
// even before the store shows it, else the guessed current session's; ""
// when none is known.
func (m *Model) currentID(s *server) string {
	if s.cfg.ProxyURL != "" {
		return ""
	}
	if m.beaconSpeaks() && m.hostRunning() {
		if s.held == nil {
			return ""
		}
		return s.held.Session
	}
	if cur := m.currentSession(s); cur != nil {
		return cur.id
	}
	return ""
}

// hostRestart is the watchdog's restart of the host while it is under way
// (from its heal_started until its time is up): the process watcher may
// see the old process gone before it sees the new one (CI at ee14767: by
// 35 ms), and the new one is then the restarted host, not one that came.
type hostRestart struct {
	pid   int32     // the process being restarted (0: none was running)
	until time.Time // the restart's time is up
	down  int32     // pid, once the watcher saw it gone
}

// restartStarted notes a restart of the host the healer began.
// A heal's start or failure is the server's too (healStarted, healFailed).
func (m *Model) restartStarted(o HealStarted, now time.Time) {
	if o.Strategy != StrategyHostRestart || !m.host.running {
		return
	}
	within := o.Within
	if within <= 0 {
		within = time.Minute
	}
	m.restart = hostRestart{pid: m.host.pid, until: now.Add(within)}
}

// stopped reports whether pid going down is the restart's stop (and notes it).
func (r *hostRestart) stopped(pid int32, now time.Time) bool {
	if r.pid == 0 || r.pid != pid || !now.Before(r.until) {
		return false
	}
	r.down = pid
	return true
}

// downAt is the pid the restart stopped, while its time is not up (0: none).
func (r *hostRestart) downAt(now time.Time) int32 {
	if !now.Before(r.until) {
		return 0
	}
	return r.down
}
