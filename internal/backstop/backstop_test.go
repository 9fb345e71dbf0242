package backstop

import (
	"slices"
	"testing"
	"time"
)

func TestPace(t *testing.T) {
	t.Parallel()
	p := New(10*time.Second, time.Minute)
	want := []time.Duration{30 * time.Second, time.Minute, time.Minute, time.Minute}
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

// TestPaceStart: a pace that grows makes its first re-check where one that
// started at the short period made its second (the start's own scan is
// the first check), then doubles from there; one that does not grow (a
// period set by hand) keeps it from the start.
func TestPaceStart(t *testing.T) {
	t.Parallel()
	p := New(10*time.Second, 5*time.Minute)
	var at time.Duration
	var checks []time.Duration
	for at < 10*time.Minute {
		at += p.Next()
		checks = append(checks, at)
		p.Checked(false)
	}
	want := []time.Duration{30 * time.Second, 90 * time.Second, 210 * time.Second, 450 * time.Second, 750 * time.Second}
	if !slices.Equal(checks, want) {
		t.Fatalf("re-checks at %v, want %v", checks, want)
	}
	if got := New(50*time.Millisecond, 50*time.Millisecond).Next(); got != 50*time.Millisecond {
		t.Fatalf("a period set by hand: first wait %v", got)
	}
	if got := New(10*time.Second, 20*time.Second).Next(); got != 20*time.Second {
		t.Fatalf("a cap below the first wait: %v", got)
	}
}
