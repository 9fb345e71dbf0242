package daemon

// latest is a one-deep mailbox from the loop to a source: the newest value
// replaces one the source has not taken yet, since only the newest counts
// (the next deadline, when held events are next due). Only the loop puts,
// so once the stale value is out the put cannot block.
type latest[T any] chan T

func newLatest[T any]() latest[T] { return make(latest[T], 1) }

func (l latest[T]) put(v T) {
	select {
	case <-l:
	default:
	}
	l <- v
}
