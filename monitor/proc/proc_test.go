package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestFind(t *testing.T) {
	// a: runs as a process named commA; its command line does not contain it.
	commA := token(t, "wdh-")
	a := startStandIn(t, namedExe(t, commA), token(t, "wdproc-a-"))
	// b: runs as the test binary; its command line carries tokenB.
	tokenB := token(t, "wdproc-b-")
	b := startStandIn(t, testExe(t), "standin", tokenB)
	nobody := token(t, "wdproc-nobody-")
	unused := freePort(t)

	tests := []struct {
		name   string
		target Target
		want   *standIn // nil: not found
	}{
		{"process name", Target{Name: commA}, a},
		{"command-line substring", Target{Name: tokenB}, b},
		{"port only", Target{Port: a.port}, a},
		{"port only, other host", Target{Port: b.port}, b},
		{"port and matching name", Target{Name: tokenB, Port: b.port}, b},
		{"name wins over a port owner that does not match", Target{Name: tokenB, Port: a.port}, b},
		{"port owner when the name matches nothing", Target{Name: nobody, Port: a.port}, a},
		{"name not found", Target{Name: nobody}, nil},
		{"port not listened on", Target{Port: unused}, nil},
		{"neither found", Target{Name: nobody, Port: unused}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, found, err := Find(context.Background(), tc.target)
			if err != nil {
				t.Fatalf("Find: %v", err)
			}
			if tc.want == nil {
				if found {
					t.Fatalf("found pid %d (%q), want nothing", h.PID, h.Cmdline)
				}
				return
			}
			if !found || h.PID != tc.want.pid() {
				t.Fatalf("Find = pid %d found=%v, want pid %d", h.PID, found, tc.want.pid())
			}
			if h.Started.IsZero() || time.Since(h.Started) > time.Hour || time.Until(h.Started) > time.Minute {
				t.Errorf("Started = %v, not around now", h.Started)
			}
			if h.Cmdline != strings.Join(tc.want.cmd.Args, " ") {
				t.Errorf("Cmdline = %q, want %q", h.Cmdline, strings.Join(tc.want.cmd.Args, " "))
			}
		})
	}
}

func TestFindRejectsBadTarget(t *testing.T) {
	tests := []struct {
		target   Target
		sentinel error
	}{
		{Target{}, ErrNoTarget},
		{Target{Port: -1}, nil},
		{Target{Name: "x", Port: 70000}, nil},
	}
	for _, tc := range tests {
		_, _, err := Find(context.Background(), tc.target)
		if err == nil {
			t.Errorf("Find(%+v) succeeded", tc.target)
		}
		if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
			t.Errorf("Find(%+v) = %v, want %v", tc.target, err, tc.sentinel)
		}
	}
}

// TestFindSkipsItself runs Find in a process whose own command line is the
// only one holding the name: it must not report itself as the host.
func TestFindSkipsItself(t *testing.T) {
	tok := token(t, "wdproc-self-")
	cmd := exec.Command(testExe(t), "findself", tok)
	cmd.Env = append(os.Environ(), standInEnv+"=findself")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("findself: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != "found=false" {
		t.Errorf("a process looking for its own command line got %q, want found=false", got)
	}
}

func TestBest(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	h := func(pid int32, age time.Duration) Host { return Host{PID: pid, Started: t0.Add(-age)} }
	tests := []struct {
		name string
		in   []candidate
		want int32
	}{
		{"exact beats older substring", []candidate{{h(10, time.Hour), false}, {h(20, time.Minute), true}}, 20},
		{"oldest among exact", []candidate{{h(10, time.Minute), true}, {h(20, time.Hour), true}}, 20},
		{"lowest pid on a tie", []candidate{{h(30, 0), true}, {h(20, 0), true}}, 20},
	}
	for _, tc := range tests {
		got, ok, _ := best(tc.in)
		if !ok || got.PID != tc.want {
			t.Errorf("%s: best = %d, want %d", tc.name, got.PID, tc.want)
		}
	}
	if _, ok, _ := best(nil); ok {
		t.Error("best(nil) found something")
	}
}
