package proc

import (
	"os"
	"os/exec"
	"testing"
)

// TestLookup: a running child is found with the start time Alive accepts;
// once it has exited and been reaped it is not; pids that no process can
// have are never looked up.
func TestLookup(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := int32(cmd.Process.Pid)

	h, ok := Lookup(t.Context(), pid)
	if !ok || h.PID != pid || h.Started.IsZero() {
		t.Fatalf("Lookup(live child %d) = %+v, %v", pid, h, ok)
	}
	if alive, err := Alive(t.Context(), h); !alive || err != nil {
		t.Fatalf("Alive(looked-up child) = %v, %v", alive, err)
	}
	if self, ok := Lookup(t.Context(), int32(os.Getpid())); !ok || self.Started.After(h.Started) {
		t.Fatalf("Lookup(self) = %+v, %v; want a process started no later than its child", self, ok)
	}

	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	for _, tc := range []struct {
		name string
		pid  int32
	}{{"reaped child", pid}, {"pid 0", 0}, {"negative pid", -1}} {
		if h, ok := Lookup(t.Context(), tc.pid); ok {
			t.Errorf("Lookup(%s) = %+v, want not found", tc.name, h)
		}
	}
}
