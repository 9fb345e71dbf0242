package tailbuf

import (
	"fmt"
	"testing"
)

func TestBufferKeepsTheTail(t *testing.T) {
	t.Parallel()
	b := &Buffer{Max: 8}
	for i := range 10 {
		fmt.Fprint(b, i)
	}
	if got := b.String(); got != "23456789" {
		t.Fatalf("tail %q, want 23456789", got)
	}
}
