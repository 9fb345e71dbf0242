// Package autostart starts the watchdog at login: a LaunchAgent on macOS, an
// XDG autostart entry on Linux, or a systemd user unit. The files come from
// embedded templates with the real binary path written in at enable time, so
// the CLI (`watchdog autostart`) and the tray's "Start at login" checkbox
// share one code path.
package autostart

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Kind is how the watchdog is started at login.
type Kind int

const (
	// Auto is LaunchAgent on darwin and XDG elsewhere.
	Auto Kind = iota
	// LaunchAgent is ~/Library/LaunchAgents/<BundleID>.plist (macOS).
	LaunchAgent
	// XDG is $XDG_CONFIG_HOME/autostart/mcp-watchdog.desktop (Linux desktops).
	XDG
	// Systemd is $XDG_CONFIG_HOME/systemd/user/mcp-watchdog.service.
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
	BundleID = "dev.mcpwatchdog.watchdog"
	UnitName = "mcp-watchdog.service"
	AppID    = "mcp-watchdog"
	// SystemdEnableCommand is the one step left after enabling the unit:
	// Enable does not run systemctl (there may be no user bus).
	SystemdEnableCommand = "systemctl --user enable --now " + UnitName
	// SystemdDisableCommand stops a unit that systemd may still be running.
	SystemdDisableCommand = "systemctl --user disable --now " + UnitName
)

var (
	// ErrUnsupported: the kind does not exist on that OS (systemd on macOS).
	ErrUnsupported = errors.New("autostart kind not supported on this OS")
	// ErrBadPath: the binary path cannot be written safely into the file.
	ErrBadPath = errors.New("binary path not usable in a startup file")
)

// Options says where and for which binary. Zero fields mean this process's
// defaults: the user's home, os.Executable, runtime.GOOS, os.Getenv.
type Options struct {
	Kind   Kind
	Home   string
	Exe    string
	GOOS   string
	Getenv func(string) string
}

// State is what Status found.
type State struct {
	Kind    Kind
	Path    string
	Enabled bool   // the file exists
	Exe     string // the binary the file starts; "" when it names none
	// PointsHere: Exe is this binary (symlinks resolved).
	PointsHere bool
	// Current: the file is byte for byte what Enable would write now.
	Current bool
	// Linked (systemd only): graphical-session.target.wants holds the unit,
	// i.e. systemctl enable was run.
	Linked bool
}

// resolved is Options with every default filled in.
type resolved struct {
	kind       Kind
	home       string
	configHome string
	exe        string
	goos       string
}

func resolve(o Options) (resolved, error) {
	r := resolved{kind: o.Kind, home: o.Home, exe: o.Exe, goos: o.GOOS}
	if r.goos == "" {
		r.goos = runtime.GOOS
	}
	if r.kind == Auto {
		r.kind = XDG
		if r.goos == "darwin" {
			r.kind = LaunchAgent
		}
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
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	r.configHome = getenv("XDG_CONFIG_HOME")
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

func (r resolved) path() string {
	switch r.kind {
	case LaunchAgent:
		return filepath.Join(r.home, "Library", "LaunchAgents", BundleID+".plist")
	case Systemd:
		return filepath.Join(r.configHome, "systemd", "user", UnitName)
	}
	return filepath.Join(r.configHome, "autostart", AppID+".desktop")
}

// wantsLink is where `systemctl --user enable` links the unit.
func (r resolved) wantsLink() string {
	return filepath.Join(r.configHome, "systemd", "user", "graphical-session.target.wants", UnitName)
}

// Enable writes the startup file for o and returns its path. Writing the
// same content again is a no-op; another binary path replaces the file.
func Enable(o Options) (string, error) {
	r, err := resolve(o)
	if err != nil {
		return "", err
	}
	data, err := Render(r.kind, r.exe)
	if err != nil {
		return "", err
	}
	p := r.path()
	if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, data) {
		return p, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", fmt.Errorf("autostart: %w", err)
	}
	if err := writeAtomic(p, data); err != nil {
		return "", fmt.Errorf("autostart: %w", err)
	}
	return p, nil
}

// Disable removes the startup file (and, for systemd, the wants link that
// systemctl enable made) and returns the file's path. Absent is not an error.
func Disable(o Options) (string, error) {
	r, err := resolve(o)
	if err != nil {
		return "", err
	}
	p := r.path()
	if r.kind == Systemd {
		if fi, err := os.Lstat(r.wantsLink()); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if err := os.Remove(r.wantsLink()); err != nil {
				return p, fmt.Errorf("autostart: %w", err)
			}
		}
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return p, fmt.Errorf("autostart: %w", err)
	}
	return p, nil
}

// Status reports whether the startup file exists and whether it starts this
// binary.
func Status(o Options) (State, error) {
	r, err := resolve(o)
	if err != nil {
		return State{Kind: r.kind}, err
	}
	st := State{Kind: r.kind, Path: r.path()}
	data, err := os.ReadFile(st.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("autostart: %w", err)
	}
	st.Enabled = true
	st.Exe = ExeOf(r.kind, data)
	st.PointsHere = st.Exe == r.exe
	want, err := Render(r.kind, r.exe)
	st.Current = err == nil && bytes.Equal(data, want)
	if r.kind == Systemd {
		_, err := os.Stat(r.wantsLink()) // follows the link: a dangling one is not linked
		st.Linked = err == nil
	}
	return st, nil
}
