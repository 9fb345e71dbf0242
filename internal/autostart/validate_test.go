package autostart

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	plistlib "howett.net/plist"
)

// DesktopFileValidate runs desktop-file-validate (Debian: desktop-file-utils)
// on a .desktop file and fails the test on any complaint. Exported to tests
// only through this package; packaging has its own copy for the menu entry.
func desktopFileValidate(t *testing.T, path string) {
	t.Helper()
	bin, err := exec.LookPath("desktop-file-validate")
	if err != nil {
		t.Fatal("desktop-file-validate not found: apt-get install desktop-file-utils")
	}
	out, err := exec.Command(bin, path).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("desktop-file-validate %s: %v\n%s", path, err, out)
	}
}

func TestXDGValidates(t *testing.T) {
	t.Parallel()
	for _, exe := range []string{plainExe(t), fakeExe(t)} {
		p, err := Enable(Options{Kind: XDG, Home: t.TempDir(), Exe: exe, GOOS: "linux", Getenv: noEnv})
		if err != nil {
			t.Fatal(err)
		}
		desktopFileValidate(t, p)
		data, _ := os.ReadFile(p)
		for _, want := range []string{"Type=Application", "X-GNOME-Autostart-enabled=true", "Icon=mcp-watchdog"} {
			if !bytes.Contains(data, []byte(want)) {
				t.Errorf("%s lacks %q", p, want)
			}
		}
	}
	// With proxies, no supervisor runs the proxy process: the daemon
	// starts it itself, detached, and starts it again when it is gone.
	p, err := Enable(Options{Kind: XDG, Home: t.TempDir(), Exe: plainExe(t), GOOS: "linux", Getenv: noEnv, Listen: []string{"127.0.0.1:14300"}})
	if err != nil {
		t.Fatal(err)
	}
	desktopFileValidate(t, p)
	if data, _ := os.ReadFile(p); !bytes.Contains(data, []byte(" run --proxy-process spawn\n")) {
		t.Errorf("the XDG entry of a config with proxies does not start the daemon with --proxy-process spawn:\n%s", data)
	}
}

// launchAgent is a LaunchAgent as launchd reads it, decoded by a plist
// parser (howett.net/plist) independent of what the package writes.
type launchAgent struct {
	Label            string                      `plist:"Label"`
	ProgramArguments []string                    `plist:"ProgramArguments"`
	RunAtLoad        bool                        `plist:"RunAtLoad"`
	KeepAlive        bool                        `plist:"KeepAlive"`
	ThrottleInterval int                         `plist:"ThrottleInterval"`
	ProcessType      string                      `plist:"ProcessType"`
	Sockets          map[string]launchdSocketDef `plist:"Sockets"`
}

type launchdSocketDef struct {
	SockNodeName    string `plist:"SockNodeName"`
	SockServiceName string `plist:"SockServiceName"`
	SockType        string `plist:"SockType"`
	SockFamily      string `plist:"SockFamily"`
	SockPathName    string `plist:"SockPathName"`
	SockPathMode    int    `plist:"SockPathMode"`
}

// decodeAgent parses data as an XML property list, strictly: it must be
// the XML format (what launchd and plutil -lint take) and decode.
func decodeAgent(t *testing.T, data []byte) launchAgent {
	t.Helper()
	var a launchAgent
	format, err := plistlib.Unmarshal(data, &a)
	if err != nil || format != plistlib.XMLFormat {
		t.Fatalf("not an XML property list (format %d): %v\n%s", format, err, data)
	}
	return a
}

// The LaunchAgent starts this binary's `run --proxy-process supervised`
// with the config's flags, keeps it alive after every exit (KeepAlive, a
// 1 s throttle) and holds the control socket (0600); the proxy process's
// LaunchAgent starts `proxy` with the same flags, kept alive too, and
// holds a socket for each proxy_listen (named as the process asks launchd
// for it). plutil -lint checks both too on macOS.
func TestLaunchAgentPlist(t *testing.T) {
	t.Parallel()
	exe, home := fakeExe(t), t.TempDir()
	control := filepath.Join(home, "Library", "Application Support", "mcp-watchdog", "watchdog.sock")
	o := Options{Kind: LaunchAgent, Home: home, Exe: exe, GOOS: "darwin", Getenv: noEnv, ConfigFile: "/Users/u/my & <cfg>.toml",
		Listen: []string{"127.0.0.1:14300", "localhost:14301", "[::1]:14302"}, Control: control}
	p, err := Enable(o)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	a := decodeAgent(t, data)
	if a.Label != BundleID || !a.RunAtLoad || !a.KeepAlive || a.ThrottleInterval != 1 || a.ProcessType != "Interactive" {
		t.Errorf("LaunchAgent %+v: want label %s, RunAtLoad, KeepAlive, ThrottleInterval 1, Interactive", a, BundleID)
	}
	if want := []string{exe, "run", "--proxy-process", "supervised", "--config", o.ConfigFile}; !slices.Equal(a.ProgramArguments, want) {
		t.Errorf("ProgramArguments = %q, want %q", a.ProgramArguments, want)
	}
	if want := map[string]launchdSocketDef{"control": {SockPathName: control, SockPathMode: 0o600}}; !maps.Equal(a.Sockets, want) {
		t.Errorf("Sockets = %+v\nwant %+v", a.Sockets, want)
	}
	pp := filepath.Join(filepath.Dir(p), ProxyLabel+".plist")
	pdata, _ := os.ReadFile(pp)
	pa := decodeAgent(t, pdata)
	if pa.Label != ProxyLabel || !pa.RunAtLoad || !pa.KeepAlive || pa.ThrottleInterval != 1 {
		t.Errorf("the proxy process's LaunchAgent %+v: want label %s, RunAtLoad, KeepAlive, ThrottleInterval 1", pa, ProxyLabel)
	}
	if want := []string{exe, "proxy", "--config", o.ConfigFile}; !slices.Equal(pa.ProgramArguments, want) {
		t.Errorf("the proxy process's ProgramArguments = %q, want %q", pa.ProgramArguments, want)
	}
	want := map[string]launchdSocketDef{
		"proxy-127.0.0.1_14300": {"127.0.0.1", "14300", "stream", "IPv4", "", 0},
		"proxy-localhost_14301": {"127.0.0.1", "14301", "stream", "IPv4", "", 0},
		"proxy-[__1]_14302":     {"::1", "14302", "stream", "IPv6", "", 0},
	}
	if !maps.Equal(pa.Sockets, want) {
		t.Errorf("the proxy process's Sockets = %+v\nwant %+v", pa.Sockets, want)
	}
	if st, err := Status(o); err != nil || len(st.Sockets) != 4 || st.Sockets[0] != control || !st.Current {
		t.Errorf("Status = %+v, %v; want both agents' 4 sockets, current", st, err)
	}
	if plutil, err := exec.LookPath("plutil"); err == nil { // macOS only
		for _, f := range []string{p, pp} {
			if out, err := exec.Command(plutil, "-lint", f).CombinedOutput(); err != nil {
				t.Errorf("plutil -lint %s: %v\n%s", f, err, out)
			}
		}
	}
}

// TestSystemdUnitVerifies runs `systemd-analyze verify --user` on the
// daemon's service and socket unit and the proxy process's, for a binary, a config and a state
// directory whose paths need quoting (a space, $, %). systemd-analyze
// needs a runtime directory for a user manager; a private XDG_RUNTIME_DIR
// gives it one without a user bus.
func TestSystemdUnitVerifies(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	state := filepath.Join(t.TempDir(), "state $X 100%")
	o := Options{Kind: Systemd, Home: home, Exe: exeFor(t, Systemd), GOOS: "linux", Getenv: noEnv,
		ConfigFile: "/home/u/my $HOME 100% \"cfg\".toml", Listen: []string{"127.0.0.1:14300", "localhost:14301", "[::1]:14302"},
		Control: filepath.Join(state, "watchdog.sock")}
	p, err := Enable(o)
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(filepath.Dir(p), SocketUnit)
	psvc, psock := filepath.Join(filepath.Dir(p), ProxyUnit), filepath.Join(filepath.Dir(p), ProxySocketUnit)
	structuralUnitCheck(t, p, SocketUnit)
	structuralUnitCheck(t, psvc, ProxySocketUnit)
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Fatal("systemd-analyze not found: apt-get install systemd")
	}
	out, verr := systemdVerify(t, sa, p, sock, psvc, psock)
	if cannotVerify(out) {
		t.Fatalf("systemd-analyze cannot start its user manager here (%s), so the unit went unverified: "+
			"it needs systemd's own files (apt-get install systemd, as scripts/deps-debian.sh does) and a writable XDG_RUNTIME_DIR", firstLine(out))
	}
	if verr != nil || mentions(out, p) || mentions(out, sock) || mentions(out, psvc) || mentions(out, psock) {
		t.Fatalf("systemd-analyze verify --user %s %s %s %s: %v\n%s", p, sock, psvc, psock, verr, out)
	}
	checkUnits(t, p, sock, psvc, psock, o.Control)
	t.Logf("systemd-analyze verify --user: no complaint about the four units")
	// The check can fail: a misspelt key draws a warning naming the file.
	for _, f := range []string{p, sock, psvc, psock} {
		bad := filepath.Join(t.TempDir(), filepath.Base(f))
		data, _ := os.ReadFile(f)
		data = bytes.Replace(bytes.Replace(data, []byte("Restart="), []byte("Restrt="), 1), []byte("SocketMode="), []byte("SocketMod="), 1)
		if err := os.WriteFile(bad, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, _ := systemdVerify(t, sa, bad); !mentions(out, bad) {
			t.Fatalf("systemd-analyze did not flag a misspelt key in %s:\n%s", filepath.Base(f), out)
		}
	}
}

func systemdVerify(t *testing.T, sa string, units ...string) (string, error) {
	t.Helper()
	rt := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sa, append([]string{"verify", "--user"}, units...)...)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+rt, "SYSTEMD_LOG_COLOR=0")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// checkUnits checks what the four units say: the sockets each holds, what
// each runs, and that a stop (not a restart) of the daemon's unit takes
// the proxy process's along.
func checkUnits(t *testing.T, p, sock, psvc, psock, control string) {
	t.Helper()
	data, _ := os.ReadFile(sock)
	if got := SocketsOf(Systemd, data); !slices.Equal(got, []string{control}) {
		t.Errorf("the daemon's socket unit holds %q, want the control socket", got)
	}
	data, _ = os.ReadFile(psock)
	wantSockets := []string{"127.0.0.1:14300", "127.0.0.1:14301", "[::1]:14302"}
	if got := SocketsOf(Systemd, data); !slices.Equal(got, wantSockets) {
		t.Errorf("the proxy process's socket unit holds %q, want %q", got, wantSockets)
	}
	data, _ = os.ReadFile(p)
	if v, _ := keyValue(data, "Service", "ExecStart"); !strings.Contains(v, " run --proxy-process supervised ") {
		t.Errorf("the daemon's ExecStart=%s, want run --proxy-process supervised", v)
	}
	data, _ = os.ReadFile(psvc)
	if v, _ := keyValue(data, "Service", "ExecStart"); !strings.Contains(v, " proxy \"--config\"") {
		t.Errorf("the proxy process's ExecStart=%s, want proxy with the config", v)
	}
	if v, _ := keyValue(data, "Unit", "StopPropagatedFrom"); v != UnitName {
		t.Errorf("the proxy process's StopPropagatedFrom=%q, want %s: a watchdog stopped on purpose takes its proxies along", v, UnitName)
	}
	if v, _ := keyValue(data, "Unit", "PartOf"); v != "" {
		t.Errorf("the proxy process is PartOf=%s: a restart of the daemon would restart it", v)
	}
}

// cannotVerify: systemd-analyze could not start its user manager at all,
// which says nothing about the unit.
func cannotVerify(out string) bool {
	return strings.Contains(out, "Failed to initialize manager") ||
		strings.Contains(out, "Failed to lookup RuntimeDirectory")
}

func mentions(out, unit string) bool {
	return strings.Contains(out, unit) || strings.Contains(out, filepath.Base(unit)+":")
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// structuralUnitCheck: the keys that make it a supervisor that never gives
// up (restarted after every exit, no start limit, at every login, with its
// socket unit), and the ExecStart binary is an executable file.
func structuralUnitCheck(t *testing.T, p, socket string) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]string]string{
		{"Unit", "StartLimitIntervalSec"}: "0",
		{"Service", "Restart"}:            "always",
		{"Service", "RestartSec"}:         "1",
		{"Install", "WantedBy"}:           "default.target",
		{"Install", "Also"}:               socket,
	}
	for k, v := range want {
		if got, ok := keyValue(data, k[0], k[1]); !ok || got != v {
			t.Errorf("[%s] %s = %q, want %q", k[0], k[1], got, v)
		}
	}
	exe := ExeOf(Systemd, data)
	fi, err := os.Stat(exe)
	if err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("ExecStart binary %q: %v", exe, err)
	}
	if errors.Is(err, os.ErrNotExist) {
		t.Errorf("ExecStart does not name an existing file")
	}
	for _, gone := range []string{"PartOf", "StartLimitBurst"} {
		if v, ok := keyValue(data, "Unit", gone); ok {
			t.Errorf("[Unit] %s=%s: the unit must not stop with the desktop session or give up", gone, v)
		}
	}
}
