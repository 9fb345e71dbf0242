package daemon

import (
	"context"
	"testing"
)

// Issue 15, measured: SIGTERM closed the socket, but the daemon went on
// draining a flood, because a source with lines to spare won half its
// races against the stop. Once stopped, nothing more is taken in.
func TestNothingIsSentAfterTheStop(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ch := make(chan item, 1000)
	for range 1000 {
		if sendTo(ctx, ch, adoptedIn{}) {
			t.Fatal("an item was handed to the loop after the stop")
		}
	}
}
