package daemon

import (
	"sync"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/metrics"
	"github.com/mcpwatchdog/watchdog/internal/notify"
)

// A subscriber is a face of the daemon that follows its one stream of
// events: the metrics' counters, the notifications, a test's listener.
// Adding one is a type and a line in subscribersOf. (The tray follows the
// state, not the events: the loop hands it views, which it coalesces, as
// Tailscale's ipn hands its faces state.)
type subscriber interface {
	name() string
	// take is handed each publication in order, on the subscriber's own
	// goroutine: a slow face holds up nobody but itself.
	take(p publication)
}

// A publication is one element of the stream, typed per kind; the kinds
// are this file's (sealed).
type publication interface{ event() health.Event }

// eventSaid is an event the models or the daemon said, whether the
// journal took it or not: a flood's events past the journal's limit are
// counted all the same.
type eventSaid struct{ ev health.Event }

// eventJournaled is an event now in the journal, late after an outage.
// Only these are notified: a bubble for an event a kill -9 then lost
// would tell what the journal, and a restart's redelivery, know nothing of.
type eventJournaled struct{ ev health.Event }

func (p eventSaid) event() health.Event      { return p.ev }
func (p eventJournaled) event() health.Event { return p.ev }

// subscribersOf is the registry of the daemon's own subscribers; the
// notifier joins once serve starts it (startNotifier).
func (d *daemon) subscribersOf() []subscriber {
	return []subscriber{metricsCounter{d.metrics}}
}

// metricsCounter counts every event said.
type metricsCounter struct{ m *metrics.Metrics }

func (metricsCounter) name() string { return "metrics" }

func (c metricsCounter) take(p publication) {
	if ev, ok := p.(eventSaid); ok {
		c.m.Count(ev.ev)
	}
}

// notifierFace hands the notifier every journaled event.
type notifierFace struct{ n *notify.Notifier }

func (notifierFace) name() string { return "notifications" }

func (f notifierFace) take(p publication) {
	if ev, ok := p.(eventJournaled); ok {
		f.n.Consider(ev.ev)
	}
}

// stream fans the loop's publications out to the subscribers, each
// through its own queue and goroutine once started. Unstarted (a daemon
// a test drives without serve) it hands them over at once, in the caller.
type stream struct {
	mu      sync.Mutex
	queues  []*subQueue
	started bool
	wg      sync.WaitGroup
}

func newStream(subs ...subscriber) *stream {
	s := &stream{}
	for _, sub := range subs {
		s.add(sub)
	}
	return s
}

// add registers sub; only before start.
func (s *stream) add(sub subscriber) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queues = append(s.queues, &subQueue{sub: sub, ready: make(chan struct{}, 1)})
}

// start gives each subscriber its goroutine; close ends them.
func (s *stream) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started = true
	for _, q := range s.queues {
		goRun(&s.wg, q.run)
	}
}

// publish hands p to every subscriber without waiting for any.
func (s *stream) publish(p publication) {
	s.mu.Lock()
	started, queues := s.started, s.queues
	s.mu.Unlock()
	for _, q := range queues {
		if started {
			q.put(p)
		} else {
			q.sub.take(p)
		}
	}
}

// close lets each subscriber take what is queued, then ends its goroutine.
func (s *stream) close() {
	s.mu.Lock()
	for _, q := range s.queues {
		q.close()
	}
	s.started = false
	s.mu.Unlock()
	s.wg.Wait()
}

// subQueue is one subscriber's queue. It is not bounded: the subscribers
// take in microseconds, and the events a flood brings are bounded where
// they are said (journal.Limit); a face that waited on the loop would be
// the hazard this queue removes.
type subQueue struct {
	sub    subscriber
	mu     sync.Mutex
	items  []publication
	closed bool
	ready  chan struct{} // one token: items were put, or the queue closed
}

func (q *subQueue) put(p publication) {
	q.mu.Lock()
	q.items = append(q.items, p)
	q.mu.Unlock()
	q.wake()
}

func (q *subQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.wake()
}

func (q *subQueue) wake() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *subQueue) run() {
	for range q.ready {
		q.mu.Lock()
		batch, closed := q.items, q.closed
		q.items = nil
		q.mu.Unlock()
		for _, p := range batch {
			q.sub.take(p)
		}
		if closed {
			return
		}
	}
}
