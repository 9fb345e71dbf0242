package demoserver

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// Reason says why the server ended a session: truth.Event's Reason.
type Reason = string

// Reasons a session ends; the strings appear in the simulated log.
const (
	ReasonIdleTimeout Reason = "idle_timeout" // the SDK's SessionTimeout fired
	ReasonDeleted     Reason = "deleted"      // the client sent DELETE
	ReasonShutdown    Reason = "shutdown"     // Close or ForgetAll (a simulated restart)
	ReasonClosed      Reason = "closed"       // anything else; only without an idle timeout
)

// EndedSession is the ground truth about one session the server ended.
type EndedSession struct {
	ID           string
	Client       string
	Reason       Reason
	Created      time.Time
	LastActivity time.Time     // start or end of the last POST carrying the id
	Ended        time.Time     // when the server noticed the end
	Idle         time.Duration // Ended - LastActivity; 0 when a request was in flight
}

// entry is one live session.
type entry struct {
	id, client    string
	created, last time.Time
	inflight      int
	reason        Reason // set before a deliberate close; empty otherwise
}

// tracker holds the live and ended sessions. It does no I/O; changed is
// called (outside the lock) after every mutation so the store can follow,
// except after add and end: their caller reports the start or end first
// and then calls changed, so the store never shows what the ground truth
// has not said.
type tracker struct {
	now         func() time.Time
	idleTimeout time.Duration
	changed     func()

	mu    sync.Mutex
	live  map[string]*entry
	ended []EndedSession
	gone  map[string]bool // ids of ended, the way a request names them
}

func newTracker(now func() time.Time, idle time.Duration, changed func()) *tracker {
	return &tracker{now: now, idleTimeout: idle, changed: changed, live: make(map[string]*entry), gone: make(map[string]bool)}
}

// over reports whether the server has said id ended (and it is not live
// again, as a restart's restore can make it).
func (t *tracker) over(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, live := t.live[id]
	return t.gone[id] && !live
}

// add records a new session; it reports false if the id was already live.
func (t *tracker) add(id, client string) bool {
	t.mu.Lock()
	_, dup := t.live[id]
	if !dup {
		now := t.now()
		t.live[id] = &entry{id: id, client: client, created: now, last: now}
	}
	t.mu.Unlock()
	return !dup
}

// begin marks the start of a POST carrying id; it reports whether id is live.
func (t *tracker) begin(id string) bool {
	return t.touch(id, 1)
}

// finish marks the end of a POST begun with begin.
func (t *tracker) finish(id string) {
	t.touch(id, -1)
}

func (t *tracker) touch(id string, delta int) bool {
	t.mu.Lock()
	e, ok := t.live[id]
	if ok {
		e.inflight += delta
		e.last = t.now()
	}
	t.mu.Unlock()
	if ok {
		t.changed()
	}
	return ok
}

// mark sets the reason a live session is about to end, unless one is set.
func (t *tracker) mark(id string, r Reason) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.live[id]; ok && e.reason == "" {
		e.reason = r
	}
}

// end moves a live session to the ended list. It is idempotent: the second
// call for an id reports false.
func (t *tracker) end(id string) (EndedSession, bool) {
	t.mu.Lock()
	e, ok := t.live[id]
	if !ok {
		t.mu.Unlock()
		return EndedSession{}, false
	}
	delete(t.live, id)
	now := t.now()
	es := EndedSession{
		ID: e.id, Client: e.client, Reason: t.reasonFor(e),
		Created: e.created, LastActivity: e.last, Ended: now,
	}
	if e.inflight <= 0 {
		es.Idle = max(now.Sub(e.last), 0)
	}
	t.ended = append(t.ended, es)
	t.gone[id] = true
	t.mu.Unlock()
	return es, true
}

// reasonFor infers why e ended: nothing marked it, so with an idle timeout
// configured the SDK's idle timer is the only remaining closer.
func (t *tracker) reasonFor(e *entry) Reason {
	switch {
	case e.reason != "":
		return e.reason
	case t.idleTimeout > 0:
		return ReasonIdleTimeout
	default:
		return ReasonClosed
	}
}

// liveEntries returns copies of the live sessions, oldest first.
func (t *tracker) liveEntries() []entry {
	t.mu.Lock()
	out := make([]entry, 0, len(t.live))
	for _, e := range t.live {
		out = append(out, *e)
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b entry) int {
		if c := a.created.Compare(b.created); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	return out
}

func (t *tracker) endedSessions() []EndedSession {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.ended)
}
