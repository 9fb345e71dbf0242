package health

import (
	"fmt"
	"time"
)

// hostStartSlack tolerates a session created just before the process start
// time we read (clock granularity). Kept short: a host restarted within
// seconds must not adopt its dead predecessor's session, and keep it warm.
const hostStartSlack = time.Second

func (m *Model) hostUp(sig Signal, now time.Time) []Event {
	prev := m.host
	m.host = hostState{known: true, running: true, pid: sig.PID, started: sig.Started}
	fields := map[string]any{"pid": sig.PID}
	switch {
	case prev.running && (sig.Restarted || prev.pid != sig.PID):
		return []Event{{Time: now, Kind: EvHostRestarted, Fields: fields,
			Detail: fmt.Sprintf("%s restarted (pid %d, was %d)", m.cfg.HostName, sig.PID, prev.pid)}}
	case prev.running:
		return nil
	}
	return []Event{{Time: now, Kind: EvHostUp, Fields: fields,
		Detail: fmt.Sprintf("%s is running (pid %d)", m.cfg.HostName, sig.PID)}}
}

func (m *Model) hostDown(now time.Time) []Event {
	was := m.host
	m.host = hostState{known: true}
	if !was.running {
		return nil
	}
	m.orphanHostSessions()
	return []Event{{Time: now, Kind: EvHostDown, Fields: map[string]any{"pid": was.pid},
		Detail: fmt.Sprintf("%s (pid %d) is no longer running", m.cfg.HostName, was.pid)}}
}

// orphanHostSessions marks every session of the host's client as its dead
// host's: a host restarted within the start slack must not adopt one.
func (m *Model) orphanHostSessions() {
	for _, s := range m.servers {
		for _, sess := range s.sessions {
			if m.isHostClient(sess) {
				sess.deadHost = true
			}
		}
	}
}

// hostRunning is true unless a process watcher said the host is not running:
// with no watcher configured we assume the host is there.
func (m *Model) hostRunning() bool { return !m.host.known || m.host.running }

func (m *Model) isHostClient(sess *session) bool {
	return m.cfg.ClientName != "" && sess.client == m.cfg.ClientName
}

// currentSession is the host's session on s: the newest of its client,
// opened since the host started. Nil when the host is not running.
func (m *Model) currentSession(s *server) *session {
	if !m.hostRunning() {
		return nil
	}
	var cur *session
	for _, sess := range s.sessions {
		if !m.isHostClient(sess) || sess.deadHost {
			continue
		}
		if m.host.running && !m.host.started.IsZero() && sess.created.Before(m.host.started.Add(-hostStartSlack)) {
			continue
		}
		if cur == nil || sess.created.After(cur.created) || (sess.created.Equal(cur.created) && sess.id > cur.id) {
			cur = sess
		}
	}
	return cur
}

// HostProcess is the host process the model believes runs: its pid and
// start time, and whether it runs at all as far as the watcher said.
func (m *Model) HostProcess() (pid int32, started time.Time, running bool) {
	return m.host.pid, m.host.started, m.host.running
}
