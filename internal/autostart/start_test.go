//go:build unix

package autostart

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcpwatchdog/watchdog/internal/instance"
)

// recordingExe is a stand-in daemon: it writes its working directory
// and its command line (a word a line) into dir, says a line on stdout
// and one on stderr, and then sleeps until it is ended.
func recordingExe(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "watchdog")
	script := fmt.Sprintf(`#!/bin/sh
d=%q
pwd > "$d/cwd"
printf '%%s\n' "$0" "$@" > "$d/argv.tmp"
echo "said on stdout"
echo "said on stderr" >&2
mv "$d/argv.tmp" "$d/argv"
exec sleep 300
`, dir)
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// waitFile waits (10 s at most) until path exists, and returns it.
func waitFile(t *testing.T, path string) []byte {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear: %v", path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Where no supervisor is set up (systemd runs for the user here, but no
// unit is installed), Start runs the daemon in the background exactly as
// the XDG entry would (the entry's own command line, which runs the proxy
// process apart), in a session of its own, in the home directory, stdin
// /dev/null, its output appended to DaemonLog; Stop ends it.
func TestStartInTheBackgroundAsTheXDGEntryRuns(t *testing.T) {
	t.Parallel()
	out, state, cfg := t.TempDir(), filepath.Join(t.TempDir(), "state"), filepath.Join(t.TempDir(), "c.toml")
	o := Options{Home: t.TempDir(), Exe: recordingExe(t, out), GOOS: "linux", Getenv: env("XDG_RUNTIME_DIR", userManager(t)),
		ConfigFile: cfg, StateDir: state, Listen: []string{"127.0.0.1:14300"}}
	s, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	if s.Kind != XDG || s.PID <= 0 || s.Log != filepath.Join(state, DaemonLog) || len(s.Did) != 1 {
		t.Fatalf("Start = %+v; want a background daemon logging to %s", s, DaemonLog)
	}
	exe, _ := realExe(o.Exe)
	want := []string{exe, "run", "--proxy-process", "spawn", "--config", cfg, "--state-dir", state}
	if got := strings.Fields(string(waitFile(t, filepath.Join(out, "argv")))); !slices.Equal(got, want) {
		t.Errorf("it ran %q, want %q", got, want)
	}
	xo := o
	xo.Kind, xo.Home = XDG, t.TempDir()
	entry, err := Enable(xo)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(entry)
	if line := "Exec=" + strings.Join(want, " "); !strings.Contains(string(data), line+"\n") {
		t.Errorf("the XDG entry says another command line than Start ran, %q:\n%s", line, data)
	}
	if cwd := strings.TrimSpace(string(waitFile(t, filepath.Join(out, "cwd")))); cwd != o.Home {
		t.Errorf("it ran in %s, want the home %s", cwd, o.Home)
	}
	if sid, err := unix.Getsid(s.PID); err != nil || sid != s.PID {
		t.Errorf("its session is %d (%v), want its own, %d", sid, err, s.PID)
	}
	if runtime.GOOS == "linux" {
		if in, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/0", s.PID)); err != nil || in != os.DevNull {
			t.Errorf("its stdin is %q (%v), want %s", in, err, os.DevNull)
		}
	}
	if b, _ := os.ReadFile(s.Log); !strings.Contains(string(b), "said on stdout\n") || !strings.Contains(string(b), "said on stderr\n") {
		t.Errorf("its log holds %q; want what it said on stdout and stderr", b)
	}
	if fi, err := os.Stat(s.Log); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("its log: %v, %v; want mode 0600", fi, err)
	}
	select {
	case <-s.Exited():
		t.Fatalf("it exited: %v", s.Err())
	default:
	}
	s.Stop()
	select {
	case <-s.Exited():
	default:
		t.Fatal("Stop returned while it still ran")
	}
	if !strings.Contains(fmt.Sprint(s.Err()), "terminated") {
		t.Errorf("it exited with %v; want ended by SIGTERM", s.Err())
	}
}

// A background daemon with no proxies serves them in its own process:
// Start runs a plain `run`, as the entry says; with no state directory it
// has nowhere to log, and says so.
func TestStartBackgroundNoProxies(t *testing.T) {
	t.Parallel()
	out, state := t.TempDir(), t.TempDir()
	o := Options{Home: t.TempDir(), Exe: recordingExe(t, out), GOOS: "linux", Getenv: noEnv, StateDir: state}
	s, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	exe, _ := realExe(o.Exe)
	if got, want := strings.Fields(string(waitFile(t, filepath.Join(out, "argv")))), []string{exe, "run", "--state-dir", state}; !slices.Equal(got, want) {
		t.Errorf("it ran %q, want %q", got, want)
	}
	o.StateDir = ""
	if s, err := Start(context.Background(), o); !errors.Is(err, ErrNoStateDir) {
		s.Stop()
		t.Errorf("Start with no state directory: %v, want ErrNoStateDir", err)
	}
}

// Stop ends the proxy process the daemon it started spawned (the holder
// of the proxy lock, by its pid file), and not one that ran before.
func TestStopEndsTheSpawnedProxyProcess(t *testing.T) {
	t.Parallel()
	for _, before := range []bool{false, true} {
		state := t.TempDir()
		proxy := exec.Command("sleep", "300")
		if err := proxy.Start(); err != nil {
			t.Fatal(err)
		}
		waited := make(chan error, 1)
		go func() { waited <- proxy.Wait() }()
		holdProxyLock := func() {
			l, err := instance.AcquireProxy(state)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = l.Release() })
			if err := os.WriteFile(filepath.Join(state, instance.ProxyPIDFile), []byte(fmt.Sprint(proxy.Process.Pid)), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if before {
			holdProxyLock()
		}
		s, err := Start(context.Background(), Options{Home: t.TempDir(), Exe: recordingExe(t, t.TempDir()), GOOS: "linux", Getenv: noEnv, StateDir: state})
		if err != nil {
			t.Fatal(err)
		}
		if !before {
			holdProxyLock()
		}
		s.Stop()
		select {
		case <-waited:
			if before {
				t.Error("Stop ended a proxy process that ran before Start")
			}
		case <-time.After(time.Second): // what is checked is that it does not end
			if !before {
				t.Error("Stop left the proxy process the daemon spawned")
			}
			_ = proxy.Process.Kill()
			<-waited
		}
	}
}

// Where the systemd units are installed and systemd runs for the user,
// Start starts them through it; a failure is an error with what
// systemctl said.
func TestStartThroughSystemd(t *testing.T) {
	t.Parallel()
	rec, o := supervised(t)
	s, err := Start(context.Background(), o)
	want := "systemctl --user start mcp-watchdog.socket mcp-watchdog.service mcp-watchdog-proxy.socket mcp-watchdog-proxy.service"
	if got := rec.take(); err != nil || s.Kind != Systemd || s.PID != 0 || s.Exited() != nil || !slices.Equal(got, []string{want}) || !slices.Equal(s.Did, got) {
		t.Fatalf("Start = %+v, %v, commands %q; want %q", s, err, got, want)
	}
	s.Stop() // the supervisor's: left alone
	rec.fail = map[string]bool{want: true}
	if _, err := Start(context.Background(), o); err == nil || !strings.Contains(err.Error(), "Unit not loaded.") {
		t.Errorf("Start with systemctl failing: %v; want what it said", err)
	}
}

// Where the LaunchAgents are installed on macOS, Start kicks the loaded
// one and bootstraps the one launchd does not have.
func TestStartThroughLaunchd(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	o := Options{Kind: LaunchAgent, Home: t.TempDir(), Exe: plainExe(t), GOOS: "darwin", Getenv: noEnv, Listen: []string{"127.0.0.1:14300"}, Run: rec.run}
	if _, err := Enable(o); err != nil {
		t.Fatal(err)
	}
	domain := fmt.Sprintf("gui/%d", os.Getuid())
	rec.fail = map[string]bool{"launchctl print " + domain + "/" + ProxyLabel: true}
	s, err := Start(context.Background(), o)
	proxyPlist := filepath.Join(o.Home, "Library", "LaunchAgents", ProxyLabel+".plist")
	want := []string{"launchctl print " + domain + "/" + BundleID, "launchctl kickstart " + domain + "/" + BundleID,
		"launchctl print " + domain + "/" + ProxyLabel, "launchctl bootstrap " + domain + " " + proxyPlist}
	if got := rec.take(); err != nil || s.Kind != LaunchAgent || !slices.Equal(got, want) {
		t.Fatalf("Start = %+v, %v, commands %q; want %q", s, err, got, want)
	}
}
