// Package autostart starts the watchdog at login and keeps it running: a
// systemd user service with a socket unit that holds the proxies' and
// the control socket while the daemon restarts (where systemd runs for
// the user), a LaunchAgent with KeepAlive and a Sockets entry each on
// macOS, or an XDG autostart entry elsewhere, which starts the daemon at
// a desktop login and nothing more. The files come from embedded
// templates with the real binary path written in at enable time, so the
// CLI (`watchdog autostart`), the tray's "Start at login" checkbox and
// `watchdog hosts adopt` share one code path (Supervise, SyncSockets).
package autostart

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Kind is how the watchdog is started at login.
type Kind int

const (
	// Auto is LaunchAgent on darwin; elsewhere Systemd when a systemd
	// user manager runs for the user, else XDG.
	Auto Kind = iota
	// LaunchAgent is ~/Library/LaunchAgents/<BundleID>.plist (macOS).
	LaunchAgent
	// XDG is $XDG_CONFIG_HOME/autostart/mcp-watchdog.desktop (Linux desktops).
	XDG
	// Systemd is $XDG_CONFIG_HOME/systemd/user/mcp-watchdog.service, and
	// mcp-watchdog.socket beside it when there are sockets to hold.
	Systemd
)

func (k Kind) String() string {
	switch k {
	case Auto:
		return "auto"
	case LaunchAgent:
		return "launchagent"
	case XDG:
		return "xdg"
	case Systemd:
		return "systemd"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Names shared with packaging (Info.plist, the .deb).
const (
	BundleID   = "dev.mcpwatchdog.watchdog"
	UnitName   = "mcp-watchdog.service"
	SocketUnit = "mcp-watchdog.socket"
	AppID      = "mcp-watchdog"
	// The proxy process (`watchdog proxy`) beside the daemon when the
	// config has proxies: its own service and socket unit, its own
	// LaunchAgent, each restarted after every exit and holding the
	// proxies' sockets; a restart of the daemon does not touch it.
	ProxyUnit       = "mcp-watchdog-proxy.service"
	ProxySocketUnit = "mcp-watchdog-proxy.socket"
	ProxyLabel      = BundleID + ".proxy"
	// SystemdEnableCommand starts the supervised daemon and its proxy
	// process at login and now, where Supervise could not run it (no
	// user manager reachable).
	SystemdEnableCommand = "systemctl --user daemon-reload && systemctl --user enable --now " + SocketUnit + " " + UnitName + " " +
		ProxySocketUnit + " " + ProxyUnit
	// SystemdDisableCommand stops what systemd may still be running.
	SystemdDisableCommand = "systemctl --user disable --now " + SocketUnit + " " + UnitName + " " + ProxySocketUnit + " " + ProxyUnit
)

var (
	// ErrUnsupported: the kind does not exist on that OS (systemd on macOS).
	ErrUnsupported = errors.New("autostart kind not supported on this OS")
	// ErrBadPath: the binary path cannot be written safely into the file.
	ErrBadPath = errors.New("binary path not usable in a startup file")
	// ErrBadListen: a proxy_listen no socket unit or LaunchAgent can hold.
	ErrBadListen = errors.New("not a loopback host:port")
	// ErrNoSockets: a socket unit with no socket to hold.
	ErrNoSockets = errors.New("no socket to hold")
)

// Options says where, for which binary and config, and which sockets the
// supervisor holds. Zero fields mean this process's defaults: the user's
// home, os.Executable, runtime.GOOS, os.Getenv, no flags, no sockets.
type Options struct {
	Kind   Kind
	Home   string
	Exe    string
	GOOS   string
	Getenv func(string) string
	// ConfigFile and StateDir are written after `run` as --config and
	// --state-dir when not empty, so the daemon the supervisor starts runs
	// the config whose sockets it holds. Empty: the daemon's defaults
	// (leave StateDir empty when the config file names it).
	ConfigFile, StateDir string
	// Listen is every proxy_listen to hold a socket for (ListensOf), and
	// Control the control socket's path (the daemon's SocketPath), held
	// so that `status` waits for a restarting daemon. Empty: none.
	Listen  []string
	Control string
	// Now: Supervise also starts the supervised daemon now, not only at
	// the next login. Leave it false while a watchdog the supervisor did
	// not start runs: the supervisor's sockets would clash with its own.
	Now bool
	// Run runs systemctl or launchctl and returns what it printed. Zero:
	// the real command, with HOME, XDG_RUNTIME_DIR and
	// DBUS_SESSION_BUS_ADDRESS taken from Getenv.
	Run func(ctx context.Context, name string, args ...string) ([]byte, error)
}

// State is what Status found.
type State struct {
	Kind    Kind
	Path    string
	Enabled bool   // the file exists
	Exe     string // the binary the file starts; "" when it names none
	// PointsHere: Exe is this binary (symlinks resolved).
	PointsHere bool
	// Current: the file (and the socket unit) is byte for byte what
	// Enable would write now.
	Current bool
	// Linked (systemd only): default.target.wants holds the unit, i.e.
	// systemctl enable was run.
	Linked bool
	// Restarts: the installed file restarts the daemon after every exit
	// (systemd Restart=always, LaunchAgent KeepAlive); an XDG entry, or a
	// unit of an older watchdog, does not.
	Restarts bool
	// Sockets are the proxy addresses and socket paths the installed
	// supervisor holds (the socket unit's, the LaunchAgent's).
	Sockets []string
}

// resolved is Options with every default filled in.
type resolved struct {
	Options
	kind       Kind
	home       string
	configHome string
	exe        string
	goos       string
	getenv     func(string) string
}

func resolve(o Options) (resolved, error) {
	r := resolved{Options: o, kind: o.Kind, home: o.Home, exe: o.Exe, goos: o.GOOS, getenv: o.Getenv}
	if r.goos == "" {
		r.goos = runtime.GOOS
	}
	if r.getenv == nil {
		r.getenv = os.Getenv
	}
	if r.kind == Auto {
		r.kind = autoKind(r.goos, r.getenv)
	}
	if r.kind == Systemd && r.goos == "darwin" {
		return r, fmt.Errorf("%v on %s: %w", r.kind, r.goos, ErrUnsupported)
	}
	if r.kind < Auto || r.kind > Systemd {
		return r, fmt.Errorf("%v: %w", r.kind, ErrUnsupported)
	}
	if r.home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return r, fmt.Errorf("home directory: %w", err)
		}
		r.home = h
	}
	r.configHome = r.getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(r.configHome) { // the XDG spec: relative values are ignored
		r.configHome = filepath.Join(r.home, ".config")
	}
	exe, err := realExe(r.exe)
	if err != nil {
		return r, err
	}
	r.exe = exe
	return r, nil
}

// autoKind: launchd on macOS; systemd where a user manager runs for this
// user; the XDG entry elsewhere.
func autoKind(goos string, getenv func(string) string) Kind {
	switch {
	case goos == "darwin":
		return LaunchAgent
	case userSystemd(getenv):
		return Systemd
	}
	return XDG
}

// userSystemd reports whether a systemd user manager runs for this user:
// its private socket, which systemctl --user talks to, is in the runtime
// directory.
func userSystemd(getenv func(string) string) bool {
	rt := getenv("XDG_RUNTIME_DIR")
	if !filepath.IsAbs(rt) {
		return false
	}
	fi, err := os.Stat(filepath.Join(rt, "systemd", "private"))
	return err == nil && fi.Mode().Type() == os.ModeSocket
}

// realExe is the absolute, symlink-free path of exe (default: this process).
func realExe(exe string) (string, error) {
	if exe == "" {
		e, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("this binary's path: %w", err)
		}
		exe = e
	}
	abs, err := filepath.Abs(exe)
	if err != nil {
		return "", fmt.Errorf("binary path %q: %w", exe, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("binary path: %w", err)
	}
	return real, nil
}

// spec is what r's files say: with proxies, the daemon's proxies are
// served by a proxy process apart (its own unit, its own LaunchAgent,
// or started by the daemon from the XDG entry).
func (r resolved) spec() Spec {
	s := Spec{Exe: r.exe, Listen: r.Listen, Control: r.Control}
	if len(r.Listen) > 0 {
		s.Role = DaemonApart
	}
	if r.ConfigFile != "" {
		s.Args = append(s.Args, "--config", r.ConfigFile)
	}
	if r.StateDir != "" {
		s.Args = append(s.Args, "--state-dir", r.StateDir)
	}
	return s
}

func (r resolved) path() string {
	switch r.kind {
	case LaunchAgent:
		return filepath.Join(r.home, "Library", "LaunchAgents", BundleID+".plist")
	case Systemd:
		return filepath.Join(r.unitDir(), UnitName)
	}
	return filepath.Join(r.configHome, "autostart", AppID+".desktop")
}

func (r resolved) unitDir() string { return filepath.Join(r.configHome, "systemd", "user") }

// proxyPath is the proxy process's startup file ("" for the XDG kind:
// there the daemon starts it).
func (r resolved) proxyPath() string {
	switch r.kind {
	case LaunchAgent:
		return filepath.Join(r.home, "Library", "LaunchAgents", ProxyLabel+".plist")
	case Systemd:
		return filepath.Join(r.unitDir(), ProxyUnit)
	}
	return ""
}

func (r resolved) proxySocketPath() string { return filepath.Join(r.unitDir(), ProxySocketUnit) }

func (r resolved) socketPath() string { return filepath.Join(r.unitDir(), SocketUnit) }

// wantsLinks are where `systemctl --user enable` links the units: the
// service under default.target (graphical-session.target for units of
// older watchdogs), the socket under sockets.target.
func (r resolved) wantsLinks() []string {
	d := r.unitDir()
	return []string{filepath.Join(d, "default.target.wants", UnitName), filepath.Join(d, "sockets.target.wants", SocketUnit),
		filepath.Join(d, "graphical-session.target.wants", UnitName), filepath.Join(d, "default.target.wants", ProxyUnit),
		filepath.Join(d, "sockets.target.wants", ProxySocketUnit)}
}
