package notify

import (
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

const (
	// maxAtRiskMarks bounds the sessions remembered as warned: a session
	// ends (and is forgotten) long before hundreds more are warned about,
	// so dropping the oldest beyond this only costs a long run its memory.
	maxAtRiskMarks = 256
	// atRiskTooLate: an at-risk event with less than this left is the
	// daemon's last tick before expiry; the loss that follows is the news.
	atRiskTooLate = time.Second
)

// markKey names a warned session. Live events carry the full id; a
// journal replay carries only its mask, kept apart (masked) so that
// different short ids (all masked alike) never share a live mark.
type markKey struct {
	server, session string
	masked          bool
}

// marks is the bounded set of sessions already warned about.
type marks struct {
	at map[markKey]time.Time // when warned, to drop the oldest
}

func newMarks() marks { return marks{at: map[markKey]time.Time{}} }

func (m *marks) len() int { return len(m.at) }

// keys is where session of server may be marked: its own key, and for a
// full id also its mask, under which a replayed journal marked it.
func keys(server, session string, masked bool) []markKey {
	if masked {
		return []markKey{{server, session, true}}
	}
	return []markKey{{server, session, false}, {server, mask.ID(session), true}}
}

// add marks session as warned and reports whether it was new.
func (m *marks) add(server, session string, masked bool, now time.Time) bool {
	ks := keys(server, session, masked)
	for _, k := range ks {
		if _, ok := m.at[k]; ok {
			return false
		}
	}
	m.at[ks[0]] = now
	if len(m.at) > maxAtRiskMarks {
		m.dropOldest()
	}
	return true
}

// forget drops session's mark: it ended, and the id is no longer a
// session anyone will be warned about.
func (m *marks) forget(server, session string, masked bool) {
	for _, k := range keys(server, session, masked) {
		delete(m.at, k)
	}
}

func (m *marks) dropOldest() {
	var oldest markKey
	var when time.Time
	first := true
	for k, t := range m.at {
		if first || t.Before(when) {
			oldest, when, first = k, t, false
		}
	}
	delete(m.at, oldest)
}
