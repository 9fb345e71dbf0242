package durfmt

import (
	"testing"
	"time"
)

func TestShort(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{37400 * time.Microsecond, "37ms"},
		{1240 * time.Millisecond, "1.2s"},
		{4*time.Minute + 12400*time.Millisecond, "4m12s"},
		{12*time.Hour + 20*time.Second, "12h0m"},
		{90 * time.Minute, "1h30m"},
	}
	for _, tc := range tests {
		if got := Short(tc.d); got != tc.want {
			t.Errorf("Short(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
