// Package supervise runs sources under a supervisor, as suture runs
// services: each source watches one thing until its context ends and
// hands what it sees to emit; a failure (an error or a panic) starts it
// again after a capped exponential backoff, and a source that is done
// returns nil and is not started again.
package supervise

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// A Source is one producer of Ts: a log follower, a store, a host's
// process, a config file, a proxy serving its socket.
type Source[T any] interface {
	// Name says which source a log line or a restart is about.
	Name() string
	// Run watches until ctx ends, handing each observation to emit, which
	// reports false once its taker stops (Run then returns). Run returns
	// nil when it has nothing (more) to watch: the source is done and not
	// started again. An error (or a panic) is a failure: the supervisor
	// starts it again after a backoff.
	Run(ctx context.Context, emit func(T) bool) error
}

// The restart backoff: doubled per failure up to the cap, and back to the
// first once a run lasted longer than the cap (the failure was one spell,
// not a source that cannot start).
const (
	RetryFirst = 100 * time.Millisecond
	RetryMax   = 30 * time.Second
)

// ErrNoRestart marks a failure a restart cannot mend (a source's config):
// it is logged and the source is not started again.
var ErrNoRestart = errors.New("not started again")

// ErrPanic wraps a source's panic so that it is logged and retried as a
// failure instead of taking the process down.
var ErrPanic = errors.New("source panicked")

// Start runs src under Run in a goroutine owned by wg and stopped by ctx.
func Start[T any](ctx context.Context, wg *sync.WaitGroup, log *slog.Logger, src Source[T], emit func(T) bool) {
	wg.Go(func() { Run(ctx, log, src, emit) })
}

// Run runs src until ctx ends or it is done, starting it again after each
// failure with a capped exponential backoff.
func Run[T any](ctx context.Context, log *slog.Logger, src Source[T], emit func(T) bool) {
	delay := RetryFirst
	for {
		began := time.Now()
		err := runGuarded(ctx, src, emit)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			log.Debug("source done", "source", src.Name())
			return
		}
		if errors.Is(err, ErrNoRestart) {
			log.Warn("source failed", "source", src.Name(), "err", err)
			return
		}
		if time.Since(began) > RetryMax {
			delay = RetryFirst
		}
		log.Warn("source failed; starting it again", "source", src.Name(), "in", delay, "err", err)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		delay = min(2*delay, RetryMax)
	}
}

// runGuarded is one run of src, a panic turned into its error.
func runGuarded[T any](ctx context.Context, src Source[T], emit func(T) bool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrPanic, r)
		}
	}()
	return src.Run(ctx, emit)
}

// Taken is src with take as its emit, called on src's goroutine: for a
// process that acts on what a source sees itself instead of queueing it
// for a loop. Its Ts are whatever src's are; Taken emits none.
func Taken[T, U any](src Source[T], take func(T)) Source[U] {
	return &taken[T, U]{src: src, take: take}
}

type taken[T, U any] struct {
	src  Source[T]
	take func(T)
}

func (t *taken[T, U]) Name() string { return t.src.Name() }

func (t *taken[T, U]) Run(ctx context.Context, _ func(U) bool) error {
	return t.src.Run(ctx, func(v T) bool {
		t.take(v)
		return ctx.Err() == nil
	})
}

// Map is src with each T made a U by f: a source of one package's words
// feeding a loop that takes its own.
func Map[T, U any](src Source[T], f func(T) U) Source[U] { return &mapped[T, U]{src: src, f: f} }

type mapped[T, U any] struct {
	src Source[T]
	f   func(T) U
}

func (m *mapped[T, U]) Name() string { return m.src.Name() }

func (m *mapped[T, U]) Run(ctx context.Context, emit func(U) bool) error {
	return m.src.Run(ctx, func(v T) bool { return emit(m.f(v)) })
}
