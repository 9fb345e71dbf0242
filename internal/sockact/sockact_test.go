package sockact_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/sockact"
	"github.com/mcpwatchdog/watchdog/internal/testbed/sockhold"
)

const roleEnv = "SOCKACT_TEST_ROLE"

func TestMain(m *testing.M) {
	if os.Getenv(roleEnv) == "child" {
		os.Exit(child())
	}
	os.Exit(m.Run())
}

type seen struct {
	Name, From, Addr string
}

// child takes what systemd's protocol passed it, says so on stdout with
// the LISTEN_ variables left behind, then answers one connection on each
// socket with its own address.
func child() int {
	set := sockact.Systemd()
	var out struct {
		Sockets []seen
		Skipped []string
		Env     []string
	}
	for _, s := range set.Sockets {
		out.Sockets = append(out.Sockets, seen{s.Name, s.From, s.Addr()})
	}
	out.Skipped = set.Skipped
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "LISTEN_") || strings.HasPrefix(kv, sockact.FromEnv+"=") {
			out.Env = append(out.Env, kv)
		}
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
	for _, s := range set.Sockets {
		c, err := s.Listener.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintf(c, "served by %s\n", s.Addr())
		_ = c.Close()
	}
	return 0
}

// The sockets passed as systemd passes them (descriptors 3…, LISTEN_FDS,
// LISTEN_FDNAMES, LISTEN_PID the taker's own pid) come out in order with
// their names and addresses, the variables are gone (no child of the
// daemon takes them for its own), and a connection made before the taker
// accepts is served by it.
func TestSystemdSocketsArePassed(t *testing.T) {
	t.Parallel()
	checkPassed(t, nil, sockact.FromSystemd)
}

// A daemon passes its proxy process the sockets it holds the same way,
// saying so (FromEnv): they are the daemon's, not systemd's.
func TestDaemonSocketsArePassed(t *testing.T) {
	t.Parallel()
	checkPassed(t, []string{sockact.FromEnv + "=" + sockact.FromDaemon}, sockact.FromDaemon)
}

func checkPassed(t *testing.T, env []string, from string) {
	sock := filepath.Join(t.TempDir(), "control.sock")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	h, err := sockhold.Start(sockhold.Options{TCP: []string{"127.0.0.1:0", "127.0.0.1:0"}, Unix: []string{sock},
		Names: []string{sockact.ProxyName("127.0.0.1:14300"), "", sockact.ControlName},
		Command: func() *exec.Cmd {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(append(os.Environ(), roleEnv+"=child"), env...)
			cmd.Stdout, cmd.Stderr = w, os.Stderr
			return cmd
		}, RestartDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Stop(syscall.SIGKILL, time.Second)
	addrs := h.Addrs()
	var got struct {
		Sockets []seen
		Skipped []string
		Env     []string
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil || json.Unmarshal([]byte(line), &got) != nil {
		t.Fatalf("the child said %q: %v", line, err)
	}
	want := []seen{{"proxy-127.0.0.1_14300", from, addrs[0]}, {"", from, addrs[1]}, {"control", from, sock}}
	if fmt.Sprint(got.Sockets) != fmt.Sprint(want) || len(got.Skipped) != 0 {
		t.Fatalf("passed %+v (skipped %v), want %+v", got.Sockets, got.Skipped, want)
	}
	if len(got.Env) != 0 {
		t.Errorf("LISTEN_ variables left for children: %v", got.Env)
	}
	for i, a := range addrs {
		network := "tcp"
		if i == 2 {
			network = "unix"
		}
		c, err := net.DialTimeout(network, a, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		ans, err := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if err != nil || ans != "served by "+a+"\n" {
			t.Errorf("connection to %s: %q, %v", a, ans, err)
		}
	}
}

// Sockets meant for another process (LISTEN_PID not ours) are not taken,
// and the variables are still cleared.
func TestSystemdIgnoresAnotherPID(t *testing.T) {
	t.Setenv("LISTEN_PID", "1")
	t.Setenv("LISTEN_FDS", "1")
	if set := sockact.Systemd(); !set.Empty() {
		t.Fatalf("took %d sockets meant for pid 1", len(set.Sockets))
	}
	if v, ok := os.LookupEnv("LISTEN_FDS"); ok {
		t.Errorf("LISTEN_FDS still set: %q", v)
	}
}

func TestMatchTCP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		want, got, name string
		match           bool
	}{
		{"127.0.0.1:14300", "127.0.0.1:14300", "", true},
		{"127.0.0.1:14300", "127.0.0.1:14301", "", false},
		{"127.0.0.1:14300", "127.0.0.2:14300", "", false},
		{"localhost:14300", "127.0.0.1:14300", "", true},
		{"LocalHost:14300", "[::1]:14300", "", true},
		{"localhost:14300", "127.0.0.2:14300", "", false},
		{"[::1]:14300", "[::1]:14300", "", true},
		{"[::ffff:127.0.0.1]:14300", "127.0.0.1:14300", "", true},
		{"127.0.0.1:014300", "127.0.0.1:14300", "", true},
		{"127.0.0.1:14300", "/run/x.sock", "proxy-127.0.0.1_14300", true},
		{"[::1]:14300", "/run/x.sock", "proxy-[__1]_14300", true},
		{"127.0.0.1:14300", "/run/x.sock", "127.0.0.1:14300", false},
		{"127.0.0.1:14300", "/run/x.sock", "control", false},
		{"not an address", "127.0.0.1:14300", "", false},
	}
	for _, tc := range tests {
		if got := sockact.MatchTCP(tc.want, tc.got, tc.name); got != tc.match {
			t.Errorf("MatchTCP(%q, %q, %q) = %v, want %v", tc.want, tc.got, tc.name, got, tc.match)
		}
	}
}

func TestMatchUnix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "s.sock")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "via")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		want, got string
		match     bool
	}{
		{p, p, true}, {p, dir + "//s.sock", true}, {filepath.Join(link, "s.sock"), p, true},
		{p, filepath.Join(dir, "other.sock"), false}, {"", p, false},
	} {
		if got := sockact.MatchUnix(tc.want, tc.got); got != tc.match {
			t.Errorf("MatchUnix(%q, %q) = %v, want %v", tc.want, tc.got, got, tc.match)
		}
	}
}
