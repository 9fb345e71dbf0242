package stream_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/stream"
)

// recorder notes the kinds of what it takes, said or journaled.
type recorder struct {
	mu   sync.Mutex
	took []string
	hold chan struct{} // nil: never held
}

func (*recorder) Name() string { return "recorder" }

func (r *recorder) Take(p stream.Publication) {
	if r.hold != nil {
		<-r.hold
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	what := "said "
	if _, ok := p.(stream.Journaled); ok {
		what = "journaled "
	}
	r.took = append(r.took, what+string(p.Event().Kind))
}

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.took...)
}

// A started stream hands every face each publication in order, a stuck
// face holding up nobody: Publish returns while it is stuck, and Close
// lets it take what was queued.
func TestStreamInOrderAndAStuckFaceHoldsNobody(t *testing.T) {
	stuck := &recorder{hold: make(chan struct{})}
	quick := &recorder{}
	s := stream.New(stuck, quick)
	s.Start()
	kinds := []health.EventKind{health.EvSessionNew, health.EvSessionLost, health.EvRecovered}
	for _, k := range kinds {
		s.Publish(stream.Said{Ev: health.Event{Kind: k}})
		s.Publish(stream.Journaled{Ev: health.Event{Kind: k}})
	}
	close(stuck.hold)
	s.Close()
	for _, r := range []*recorder{stuck, quick} {
		got := r.seen()
		if len(got) != 2*len(kinds) {
			t.Fatalf("took %v, want all %d publications", got, 2*len(kinds))
		}
		for i, k := range kinds {
			if got[2*i] != "said "+string(k) || got[2*i+1] != "journaled "+string(k) {
				t.Fatalf("took %v, not in the order published", got)
			}
		}
	}
}

// An unstarted stream (a daemon a test drives without serving it) hands
// each publication over at once, in the caller.
func ExampleNew() {
	r := &recorder{}
	s := stream.New(r)
	s.Publish(stream.Said{Ev: health.Event{Kind: health.EvSessionLost}})
	fmt.Println(r.seen())
	// Output: [said session_lost]
}
