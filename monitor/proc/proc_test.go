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
	// b: runs as the test binary; only an argument carries tokenB.
	tokenB := token(t, "wdproc-b-")
	b := startStandIn(t, testExe(t), "standin", tokenB)
	// c: runs as an executable whose name the kernel cuts to 15 bytes.
	commC := token(t, "wdh-long-")
	c := startStandIn(t, namedExe(t, commC), token(t, "wdproc-c-"))
	nobody := token(t, "wdproc-nobody-")
	unused := freePort(t)

	tests := []struct {
		name   string
		target Target
		want   *standIn // nil: not found
	}{
		{"process name", Target{Name: commA}, a},
		{"process name longer than the kernel keeps", Target{Name: commC}, c},
		{"an argument is not the host", Target{Name: tokenB}, nil},
		{"port only", Target{Port: a.port}, a},
		{"port only, other host", Target{Port: b.port}, b},
		{"port and matching name", Target{Name: commA, Port: a.port}, a},
		{"name wins over a port owner that does not match", Target{Name: commA, Port: b.port}, a},
		{"an argument does not make the port owner match", Target{Name: tokenB, Port: a.port}, a},
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

// TestFindSkipsItself runs Find in a process that is the only one running
// as the name: it must not report itself as the host.
func TestFindSkipsItself(t *testing.T) {
	tok := token(t, "wdproc-self-")
	cmd := exec.Command(testExe(t))
	cmd.Args = []string{tok, tok} // runs as tok, and looks for its last argument
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
		in   []Host
		want int32
	}{
		{"oldest wins", []Host{h(10, time.Minute), h(20, time.Hour)}, 20},
		{"oldest wins, whatever the order", []Host{h(20, time.Hour), h(10, time.Minute)}, 20},
		{"lowest pid on a tie", []Host{h(30, 0), h(20, 0)}, 20},
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

// TestFindByWhatItRuns is measurement 3 of issue 14: a process is the host
// by the executable or script it runs, never because an argument mentions
// the name (`timeout 500 npm install @deepseek-ai/dsh@…` was taken for DSH).
func TestFindByWhatItRuns(t *testing.T) {
	node := namedExe(t, "node") // a process whose executable is called node
	tests := []struct {
		name  string
		exe   string
		argv  func(name string) []string
		found bool
	}{
		{"argv[0] is the name", testExe(t), func(n string) []string { return []string{n, "web"} }, true},
		{"argv[0] is a path to the name", testExe(t), func(n string) []string { return []string{"/opt/bin/" + n, "web"} }, true},
		{"node runs the script", node, func(n string) []string {
			return []string{"node", "/usr/lib/node_modules/" + n + "/bin/" + n + ".js", "web"}
		}, true},
		{"node runs the script after options", node, func(n string) []string {
			return []string{"node", "--max-old-space-size=4096", "--", "/app/" + n + ".mjs"}
		}, true},
		{"npm installing the package", testExe(t), func(n string) []string {
			return []string{"timeout", "500", "npm", "install", "@deepseek-ai/" + n + "@0.1.0-rc.8"}
		}, false},
		{"node running npm for the package", node, func(n string) []string { return []string{"node", "/usr/bin/npm", "install", "@deepseek-ai/" + n} }, false},
		{"a pager on a file in its folder", testExe(t), func(n string) []string { return []string{"less", "/home/u/." + n + "/x"} }, false},
		{"tail on its log", testExe(t), func(n string) []string { return []string{"tail", "-f", "/var/log/" + n + ".log"} }, false},
		{"node requiring a module of that name", node, func(n string) []string { return []string{"node", "--require", "/x/" + n + ".js", "/app/main.js"} }, false},
		{"node evaluating code that names it", node, func(n string) []string { return []string{"node", "-e", "require('" + n + "')"} }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := token(t, "wdh-")
			s := startStandIn(t, tc.exe, tc.argv(name)...)
			h, found, err := Find(context.Background(), Target{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			if got := found && h.PID == s.pid(); got != tc.found || (found && !got) {
				t.Errorf("argv %q: Find = pid %d found=%v, want the stand-in (pid %d) found=%v",
					s.cmd.Args, h.PID, found, s.pid(), tc.found)
			}
		})
	}
}
