package proc

import (
	"os/exec"
	"testing"
	"time"
)

func TestBeganFrom(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	stat := func(comm string) []byte {
		// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
		// utime stime cutime cstime priority nice threads itrealvalue starttime ...
		return []byte("4242 (" + comm + ") S 1 4242 4242 0 -1 4194560 100 0 0 0 1 1 0 0 20 0 1 0 123456 1000 50")
	}
	tests := []struct {
		name         string
		uptime, stat []byte
		want         time.Time
		wantErr      bool
	}{
		{"started 100 s before now", []byte("1334.56 2000.00\n"), stat("node"), now.Add(-(1334560*time.Millisecond - 1234560*time.Millisecond)), false},
		{"a name with spaces and parentheses", []byte("1334.56 2000.00\n"), stat("my (odd) host"), now.Add(-100 * time.Second), false},
		{"empty uptime", nil, stat("node"), time.Time{}, true},
		{"no name", []byte("1334.56 1\n"), []byte("4242 node S 1"), time.Time{}, true},
		{"too few fields", []byte("1334.56 1\n"), []byte("4242 (node) S 1 2 3"), time.Time{}, true},
		{"starttime not a number", []byte("1334.56 1\n"), []byte("4242 (node) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 1 0 0 20 0 1 0 x 1"), time.Time{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := beganFrom(tt.uptime, tt.stat, now)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want error %v", err, tt.wantErr)
			}
			if !tt.wantErr && got.Sub(tt.want).Abs() > time.Millisecond {
				t.Fatalf("began %s, want %s", got, tt.want)
			}
		})
	}
}

// TestBeganIsPrecise: a real child's Began lies within a few clock ticks of
// the moment it was started, where gopsutil's Started may be up to a second
// early (a boot time truncated to the second).
func TestBeganIsPrecise(t *testing.T) {
	t.Parallel()
	before := time.Now()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	h, ok := hostOf(t.Context(), int32(cmd.Process.Pid))
	if !ok {
		t.Fatal("cannot read the child process")
	}
	const tick = 30 * time.Millisecond // a USER_HZ tick, /proc/uptime's resolution, and rounding
	got := Began(h)
	if got.Before(before.Add(-tick)) || got.After(after.Add(tick)) {
		t.Fatalf("Began %s, want within [%s, %s] (Started %s)", got.Format(time.StampMicro),
			before.Format(time.StampMicro), after.Format(time.StampMicro), h.Started.Format(time.StampMicro))
	}
}
