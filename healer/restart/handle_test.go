//go:build unix

package restart

import (
	"context"
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// TestHandles runs each way of signalling this platform has (a pidfd and
// the checked pid on Linux) against real children: a wrong start time
// sends nothing, the right one stops the child, an exited child is gone.
func TestHandles(t *testing.T) {
	for name, open := range handleOpeners() {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			tests := []struct {
				name   string
				shift  time.Duration // added to the child's real start time
				exited bool          // the child is killed and reaped first
				want   error         // from open; nil: it opens and terminate stops the child
			}{
				{"right identity", 0, false, nil},
				{"pid now another process", time.Second, false, errReused},
				{"a millisecond off", time.Millisecond, false, errReused},
				{"exited and reaped", 0, true, errExited},
			}
			for _, tc := range tests {
				child, p := startChild(t)
				if tc.exited {
					_ = child.Process.Kill()
					_ = child.Wait()
				}
				p.Started = p.Started.Add(tc.shift)
				h, err := open(ctx, p)
				if tc.want != nil {
					if !errors.Is(err, tc.want) || !isGone(err) {
						t.Errorf("%s: open = %v, want %v", tc.name, err, tc.want)
					}
					if !tc.exited && !childRuns(child) {
						t.Errorf("%s: the child was signalled", tc.name)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: open: %v", tc.name, err)
				}
				if err := h.terminate(ctx); err != nil {
					t.Fatalf("%s: terminate: %v", tc.name, err)
				}
				ws := waitChild(t, child)
				if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
					t.Errorf("%s: child ended with %v, want SIGTERM", tc.name, ws)
				}
				if gone, err := h.gone(ctx); !gone || err != nil {
					t.Errorf("%s: gone = %v, %v after the child was reaped", tc.name, gone, err)
				}
				if err := h.kill(ctx); !isGone(err) {
					t.Errorf("%s: kill after exit = %v, want gone", tc.name, err)
				}
				h.close()
			}
		})
	}
}

// startChild starts a real child that lives until signalled, and returns
// its identity.
func startChild(t *testing.T) (*exec.Cmd, Process) {
	t.Helper()
	cmd := exec.Command("sleep", "120")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	pid := int32(cmd.Process.Pid)
	ms, err := (&process.Process{Pid: pid}).CreateTime()
	if err != nil {
		t.Fatal(err)
	}
	return cmd, Process{PID: pid, Started: time.UnixMilli(ms)}
}

// childRuns reports whether the child has not exited (a zombie has),
// without reaping it.
func childRuns(cmd *exec.Cmd) bool {
	ok, err := alive(int32(cmd.Process.Pid))
	return ok && err == nil
}

func waitChild(t *testing.T, cmd *exec.Cmd) syscall.WaitStatus {
	t.Helper()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
		return cmd.ProcessState.Sys().(syscall.WaitStatus)
	case <-time.After(30 * time.Second):
		t.Fatal("the child did not exit")
		return 0
	}
}
