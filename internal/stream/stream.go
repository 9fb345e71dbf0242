// Package stream is the daemon's one stream of events and its faces: the
// loop publishes each event it says, and again once the journal holds it;
// every face (the metrics' counters, the notifications, a test's
// listener) takes each publication in order on its own goroutine, so a
// slow face holds up nobody but itself. (The tray follows the state, not
// the events: the loop hands it views, which it coalesces, as Tailscale's
// ipn hands its faces state.)
package stream

import (
	"sync"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// A Face follows the stream. Adding one is a type with these two methods
// and a line in the daemon's registry of faces.
type Face interface {
	// Name says which face a log line is about.
	Name() string
	// Take is handed each publication in order, on the face's own
	// goroutine.
	Take(p Publication)
}

// A Publication is one element of the stream, typed per kind: Said or
// Journaled (sealed: only this package's types are publications).
type Publication interface {
	Event() health.Event
	published()
}

// Said is an event the models or the daemon said, whether the journal
// took it or not: a flood's events past the journal's limit are counted
// all the same.
type Said struct{ Ev health.Event }

// Journaled is an event now in the journal, late after an outage. Only
// these are notified: a bubble for an event a kill -9 then lost would tell
// what the journal, and a restart's redelivery, know nothing of.
type Journaled struct{ Ev health.Event }

// Event is the event said.
func (p Said) Event() health.Event { return p.Ev }

// Event is the event journaled.
func (p Journaled) Event() health.Event { return p.Ev }

func (Said) published()      {}
func (Journaled) published() {}

// Stream fans the loop's publications out to the faces, each through its
// own queue and goroutine once started. Unstarted (a daemon a test drives
// without serving it) it hands them over at once, in the caller.
type Stream struct {
	mu      sync.Mutex
	queues  []*faceQueue
	started bool
	wg      sync.WaitGroup
}

// New is a stream to faces, not started.
func New(faces ...Face) *Stream {
	s := &Stream{}
	for _, f := range faces {
		s.queues = append(s.queues, &faceQueue{face: f, ready: make(chan struct{}, 1)})
	}
	return s
}

// Start gives each face its goroutine; Close ends them.
func (s *Stream) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started = true
	for _, q := range s.queues {
		s.wg.Go(q.run)
	}
}

// Publish hands p to every face without waiting for any.
func (s *Stream) Publish(p Publication) {
	s.mu.Lock()
	started, queues := s.started, s.queues
	s.mu.Unlock()
	for _, q := range queues {
		if started {
			q.put(p)
		} else {
			q.face.Take(p)
		}
	}
}

// Close lets each face take what is queued, then ends its goroutine.
func (s *Stream) Close() {
	s.mu.Lock()
	for _, q := range s.queues {
		q.close()
	}
	s.started = false
	s.mu.Unlock()
	s.wg.Wait()
}

// faceQueue is one face's queue. It is not bounded: the faces take in
// microseconds, and the events a flood brings are bounded where
// they are said (journal.Limit); a face that waited on the loop would be
// the hazard this queue removes.
type faceQueue struct {
	face   Face
	mu     sync.Mutex
	items  []Publication
	closed bool
	ready  chan struct{} // one token: items were put, or the queue closed
}

func (q *faceQueue) put(p Publication) {
	q.mu.Lock()
	q.items = append(q.items, p)
	q.mu.Unlock()
	q.wake()
}

func (q *faceQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.wake()
}

func (q *faceQueue) wake() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *faceQueue) run() {
	for range q.ready {
		q.mu.Lock()
		batch, closed := q.items, q.closed
		q.items = nil
		q.mu.Unlock()
		for _, p := range batch {
			q.face.Take(p)
		}
		if closed {
			return
		}
	}
}
