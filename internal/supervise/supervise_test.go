package supervise_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/supervise"
)

type funcSource func(context.Context, func(int) bool) error

func (funcSource) Name() string { return "func" }
func (f funcSource) Run(ctx context.Context, emit func(int) bool) error {
	return f(ctx, emit)
}

var discard = slog.New(slog.DiscardHandler)

// A source whose failure a restart cannot mend is not started again; one
// that is done neither.
func TestRunStopsOnNoRestartAndDone(t *testing.T) {
	for name, end := range map[string]error{"no restart": supervise.ErrNoRestart, "done": nil} {
		t.Run(name, func(t *testing.T) {
			var runs atomic.Int32
			src := funcSource(func(context.Context, func(int) bool) error {
				runs.Add(1)
				return end
			})
			supervise.Run(t.Context(), discard, src, func(int) bool { return true })
			if n := runs.Load(); n != 1 {
				t.Fatalf("ran %d times, want 1", n)
			}
		})
	}
}

// A failure and a panic are each started again, and what the third run
// emits arrives.
func TestRunStartsAFailureAndAPanicAgain(t *testing.T) {
	var runs atomic.Int32
	src := funcSource(func(ctx context.Context, emit func(int) bool) error {
		switch runs.Add(1) {
		case 1:
			return errors.New("first run fails")
		case 2:
			panic("second run panics")
		}
		emit(3)
		return nil
	})
	var got []int
	supervise.Run(t.Context(), discard, src, func(v int) bool { got = append(got, v); return true })
	if runs.Load() != 3 || len(got) != 1 || got[0] != 3 {
		t.Fatalf("runs %d, emitted %v; want 3 runs and [3]", runs.Load(), got)
	}
}

// Taken hands what a source sees to a function on its own goroutine.
func ExampleTaken() {
	src := funcSource(func(_ context.Context, emit func(int) bool) error {
		emit(1)
		emit(2)
		return nil
	})
	sum := 0
	var none supervise.Source[struct{}] = supervise.Taken[int, struct{}](src, func(v int) { sum += v })
	supervise.Run(context.Background(), discard, none, func(struct{}) bool { return true })
	fmt.Println(sum)
	// Output: 3
}
