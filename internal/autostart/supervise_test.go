package autostart

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// recorder stands in for systemctl and launchctl where no user manager can
// run (a container, CI): it records each command, and fails those named.
type recorder struct {
	mu    sync.Mutex
	lines []string
	fail  map[string]bool
}

func (r *recorder) run(_ context.Context, name string, args ...string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	line := name + " " + strings.Join(args, " ")
	r.lines = append(r.lines, line)
	if r.fail[line] {
		return []byte("Unit not loaded."), errors.New("exit status 5")
	}
	return nil, nil
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.lines
	r.lines = nil
	return out
}

// userManager makes a runtime directory where a systemd user manager
// seems to run: its private socket is there (a real listening socket,
// which answers nothing). It returns the directory.
func userManager(t *testing.T) string {
	t.Helper()
	rt, err := os.MkdirTemp("", "rt") // short: a socket path has ~104 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(rt) })
	if err := os.Mkdir(filepath.Join(rt, "systemd"), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(rt, "systemd", "private"))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return rt
}

// env is a Getenv with these variables and no other.
func env(kv ...string) func(string) string {
	return func(k string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1]
			}
		}
		return ""
	}
}

func linuxOptions(t *testing.T, rt string, rec *recorder) Options {
	cfg := t.TempDir()
	return Options{Home: t.TempDir(), Exe: plainExe(t), GOOS: "linux", Getenv: env("XDG_RUNTIME_DIR", rt, "XDG_CONFIG_HOME", cfg),
		Listen: []string{"127.0.0.1:14300"}, Control: filepath.Join(t.TempDir(), "watchdog.sock"), Run: rec.run}
}

// supervised is a home where systemd runs for the user, with the units
// Supervise installed, and the recorder of the commands to come.
func supervised(t *testing.T) (*recorder, Options) {
	t.Helper()
	rec := &recorder{}
	o := linuxOptions(t, userManager(t), rec)
	if _, err := Supervise(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	rec.take()
	return rec, o
}

// Where systemd runs for the user, Supervise writes the daemon's service
// and socket unit and the proxy process's, and enables them (and with Now starts them, restarting
// them when a file changed); run again with nothing changed it only
// makes sure they are enabled and running.
func TestSuperviseSystemd(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	o := linuxOptions(t, userManager(t), rec)
	o.Now = true
	res, err := Supervise(context.Background(), o)
	if err != nil || res.Kind != Systemd || !res.AtLogin || !res.Restarts || !res.Running || res.Reason != "" || len(res.Files) != 4 {
		t.Fatalf("Supervise = %+v, %v; want systemd enabled, restarting and running, four files", res, err)
	}
	want := []string{"systemctl --user daemon-reload", "systemctl --user enable mcp-watchdog.socket mcp-watchdog.service mcp-watchdog-proxy.socket mcp-watchdog-proxy.service",
		"systemctl --user restart mcp-watchdog.socket mcp-watchdog.service mcp-watchdog-proxy.socket mcp-watchdog-proxy.service"}
	if got := rec.take(); !slices.Equal(got, want) {
		t.Errorf("commands %q, want %q", got, want)
	}
	res, err = Supervise(context.Background(), o)
	want = []string{"systemctl --user enable mcp-watchdog.socket mcp-watchdog.service mcp-watchdog-proxy.socket mcp-watchdog-proxy.service", "systemctl --user start mcp-watchdog.socket mcp-watchdog.service mcp-watchdog-proxy.socket mcp-watchdog-proxy.service"}
	if got := rec.take(); err != nil || !slices.Equal(got, want) || !res.Running {
		t.Errorf("again: %+v, %v, commands %q; want %q", res, err, got, want)
	}
	o.Now, o.Listen = false, append(o.Listen, "127.0.0.1:14301")
	res, err = Supervise(context.Background(), o)
	want = []string{"systemctl --user daemon-reload", "systemctl --user enable mcp-watchdog.socket mcp-watchdog.service mcp-watchdog-proxy.socket mcp-watchdog-proxy.service"}
	if got := rec.take(); err != nil || !slices.Equal(got, want) || res.Running || !res.AtLogin || !strings.Contains(res.Reason, "next login") {
		t.Errorf("without Now: %+v, %v, commands %q; want %q and a reason", res, err, got, want)
	}
	st, err := Status(o)
	if err != nil || !st.Restarts || !st.Current || len(st.Sockets) != 3 {
		t.Errorf("Status = %+v, %v; want current, restarting, 3 sockets", st, err)
	}
}

// No systemd user manager and not macOS: the XDG entry, which starts the
// daemon at a desktop login only, and a reason that says what hosts then
// depend on; nothing is run.
func TestSuperviseFallsBackToXDG(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	o := linuxOptions(t, t.TempDir(), rec)
	o.Now = true
	res, err := Supervise(context.Background(), o)
	if err != nil || res.Kind != XDG || res.Restarts || !res.AtLogin || !strings.Contains(res.Reason, "depend on a running") {
		t.Fatalf("Supervise = %+v, %v; want the XDG entry, no restarts, a reason", res, err)
	}
	if got := rec.take(); len(got) != 0 {
		t.Errorf("commands run without a supervisor: %q", got)
	}
	if st, _ := Status(o); st.Kind != XDG || !st.Enabled || st.Restarts {
		t.Errorf("Status = %+v", st)
	}
}

// systemd asked for where its user manager does not run: the units are
// written and the reason gives the command to run where it does.
func TestSuperviseSystemdUnreachable(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	o := linuxOptions(t, "", rec)
	o.Kind, o.Now = Systemd, true
	res, err := Supervise(context.Background(), o)
	if err != nil || res.AtLogin || res.Running || len(res.Files) != 4 || !strings.Contains(res.Reason, SystemdEnableCommand) {
		t.Fatalf("Supervise = %+v, %v; want the files and the command to enable them", res, err)
	}
	if got := rec.take(); len(got) != 0 {
		t.Errorf("commands run: %q", got)
	}
}

// The real systemctl, pointed at a runtime directory whose private socket
// is no systemd: it fails, and the reason names the command and what it
// said, with the files left written.
func TestSuperviseRealSystemctlFails(t *testing.T) {
	t.Parallel()
	o := linuxOptions(t, userManager(t), nil)
	o.Run, o.Now = nil, true
	res, err := Supervise(context.Background(), o)
	if err != nil || res.AtLogin || !strings.Contains(res.Reason, "`systemctl --user daemon-reload` failed") || len(res.Files) != 4 {
		t.Fatalf("Supervise = %+v, %v; want systemctl's failure as the reason", res, err)
	}
}

// SyncSockets rewrites only the socket lists (the proxies' in the proxy
// process's socket unit), reloads, and restarts the units only when the
// list changed; the services (binary, flags) are left as installed,
// whatever binary asks.
func TestSyncSocketsSystemd(t *testing.T) {
	t.Parallel()
	rec, o := supervised(t)
	service := filepath.Join(o.Getenv("XDG_CONFIG_HOME"), "systemd", "user", UnitName)
	before, _ := os.ReadFile(service)
	o.Exe, o.Listen = fakeExe(t), []string{"localhost:14300", "127.0.0.1:14301"}
	res, err := SyncSockets(context.Background(), o)
	want := []string{"systemctl --user daemon-reload", "systemctl --user try-restart mcp-watchdog.socket mcp-watchdog.service mcp-watchdog-proxy.socket mcp-watchdog-proxy.service"}
	if got := rec.take(); err != nil || !res.Changed || !res.ListChanged || !slices.Equal(got, want) || len(res.Sockets) != 3 {
		t.Fatalf("SyncSockets = %+v, %v, commands %q; want the list changed and %q", res, err, got, want)
	}
	if after, _ := os.ReadFile(service); string(after) != string(before) {
		t.Errorf("SyncSockets changed the service:\n%s", after)
	}
	if res.Path != filepath.Join(filepath.Dir(service), ProxySocketUnit) {
		t.Errorf("the proxies' sockets are in %s, want the proxy process's socket unit", res.Path)
	}
	o.Listen = []string{"127.0.0.1:14300", "localhost:14301"} // the same sockets, spelt otherwise
	res, err = SyncSockets(context.Background(), o)
	if got := rec.take(); err != nil || res.Changed || len(got) != 0 || !strings.Contains(res.Note, "current") {
		t.Errorf("the same list again: %+v, %v, commands %q", res, err, got)
	}
}

// Nothing installed, or only the XDG entry (which holds no socket):
// nothing to bring current, and the note says so.
func TestSyncSocketsWithoutSupervisor(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	o := linuxOptions(t, t.TempDir(), rec)
	if _, err := Supervise(context.Background(), o); err != nil { // the XDG entry
		t.Fatal(err)
	}
	res, err := SyncSockets(context.Background(), o)
	if err != nil || res.Changed || !strings.Contains(res.Note, "no supervisor") || len(rec.take()) != 0 {
		t.Fatalf("SyncSockets = %+v, %v", res, err)
	}
}

// On macOS the LaunchAgent's Sockets are rewritten with the binary and
// flags it had, and a loaded agent is loaded again so launchd holds the
// new list; one not loaded takes it at the next login.
func TestSyncSocketsLaunchAgent(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	o := Options{Home: t.TempDir(), Exe: plainExe(t), GOOS: "darwin", Getenv: noEnv, ConfigFile: "/Users/u/c.toml",
		Listen: []string{"127.0.0.1:14300"}, Control: "/Users/u/state/watchdog.sock", Run: rec.run}
	if res, err := Supervise(context.Background(), o); err != nil || res.Kind != LaunchAgent || res.Running {
		t.Fatalf("Supervise = %+v, %v", res, err)
	}
	installed := o.Exe
	o.Exe, o.ConfigFile, o.Listen = fakeExe(t), "", []string{"127.0.0.1:14300", "127.0.0.1:14301"}
	res, err := SyncSockets(context.Background(), o)
	target := "gui/" + itoa(os.Getuid()) + "/" + BundleID
	proxyPlist := filepath.Join(filepath.Dir(res.Path), ProxyLabel+".plist")
	want := []string{"launchctl print " + target, "launchctl bootout " + target, "launchctl bootstrap gui/" + itoa(os.Getuid()) + " " + res.Path,
		"launchctl print " + target + ".proxy", "launchctl bootout " + target + ".proxy", "launchctl bootstrap gui/" + itoa(os.Getuid()) + " " + proxyPlist}
	got := rec.take()
	slices.Sort(got)
	slices.Sort(want)
	if err != nil || !res.ListChanged || !slices.Equal(got, want) {
		t.Fatalf("SyncSockets = %+v, %v, commands %q; want %q", res, err, got, want)
	}
	data, _ := os.ReadFile(res.Path)
	a := decodeAgent(t, data)
	if !slices.Equal(a.ProgramArguments, []string{installed, "run", "--proxy-process", "supervised", "--config", "/Users/u/c.toml"}) || len(a.Sockets) != 1 {
		t.Errorf("after the sync: %q, %d sockets; want the installed binary and flags, the control socket", a.ProgramArguments, len(a.Sockets))
	}
	data, _ = os.ReadFile(proxyPlist)
	if a := decodeAgent(t, data); !slices.Equal(a.ProgramArguments, []string{installed, "proxy", "--config", "/Users/u/c.toml"}) || len(a.Sockets) != 2 {
		t.Errorf("the proxy process's agent after the sync: %q, %d sockets; want the installed binary and flags, 2 sockets", a.ProgramArguments, len(a.Sockets))
	}
	rec.fail = map[string]bool{"launchctl print " + target: true, "launchctl print " + target + ".proxy": true}
	o.Listen = o.Listen[:1]
	if res, err := SyncSockets(context.Background(), o); err != nil || !res.Changed || len(rec.take()) != 2 {
		t.Errorf("a LaunchAgent not loaded: %+v, %v; want the file written and nothing loaded", res, err)
	}
}

// Unsupervise disables the units where systemd runs, removes every file
// and link, and reloads.
func TestUnsupervise(t *testing.T) {
	t.Parallel()
	rec, o := supervised(t)
	o.Now = true
	res, err := Unsupervise(context.Background(), o)
	want := []string{"systemctl --user disable --now mcp-watchdog.socket mcp-watchdog.service mcp-watchdog-proxy.socket mcp-watchdog-proxy.service", "systemctl --user daemon-reload"}
	if got := rec.take(); err != nil || !slices.Equal(got, want) {
		t.Fatalf("Unsupervise = %+v, %v, commands %q; want %q", res, err, got, want)
	}
	dir := filepath.Join(o.Getenv("XDG_CONFIG_HOME"), "systemd", "user")
	for _, f := range []string{UnitName, SocketUnit, ProxyUnit, ProxySocketUnit} {
		if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left: %v", f, err)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
