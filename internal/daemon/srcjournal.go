package daemon

import (
	"context"
	"time"
)

// retrySource is the journal's retry timer: while the journal fails and
// events are held, it tells the loop when the next try is due
// (journalRetryIn). The loop hands it the time after each pass
// (timing.publishRetry), as it hands the time source its deadline.
type retrySource struct {
	at <-chan retryWake
	// sent counts the retries emitted, across the supervisor's restarts: a
	// time read before the loop took the last one is stale.
	sent uint64
}

// retryWake is when held events are due another try (ok: some are held),
// after the retry the loop last took.
type retryWake struct {
	at  time.Time
	ok  bool
	seq uint64
}

// journalRetryIn: held events are due another try.
type journalRetryIn struct{ seq uint64 }

func (*retrySource) Name() string { return "journal retry" }

func (s *retrySource) Run(ctx context.Context, emit emitFunc) error {
	t := time.NewTimer(time.Hour)
	t.Stop()
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case w := <-s.at:
			if w.seq != s.sent {
				continue
			}
			t.Stop()
			if w.ok {
				t.Reset(time.Until(w.at))
			}
		case <-t.C:
			s.sent++
			if !emit(journalRetryIn{seq: s.sent}) {
				return nil
			}
		}
	}
}

func (in journalRetryIn) handleIn(_ context.Context, d *daemon) {
	d.retryJournal(false)
	d.timing.retrySeq = in.seq
}

// publishRetry hands the retry source when the held events are next due.
func (t *timing) publishRetry(at time.Time, ok bool) {
	t.retry.put(retryWake{at: at, ok: ok, seq: t.retrySeq})
}

// retrySource is the journal's retry timer, fed by the loop's timing.
func (d *daemon) retrySource() *retrySource { return &retrySource{at: d.timing.retry} }
