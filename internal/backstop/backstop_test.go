package backstop

import (
	"testing"
	"time"
)

func TestPace(t *testing.T) {
	t.Parallel()
	p := New(10*time.Second, time.Minute)
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute, time.Minute}
	for i, w := range want {
		if got := p.Next(); got != w {
			t.Fatalf("check %d: wait %v, want %v", i, got, w)
		}
		p.Checked(false)
	}
	p.Checked(true)
	if got := p.Next(); got != 10*time.Second {
		t.Fatalf("after a find: wait %v, want the short period back", got)
	}
	if got := New(time.Minute, time.Second).Next(); got != time.Minute {
		t.Fatalf("a cap below the start: %v", got)
	}
}
