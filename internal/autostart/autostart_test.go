package autostart

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		kind Kind
		goos string
		rel  string // expected path under HOME
	}{
		{"launchagent", LaunchAgent, "darwin", "Library/LaunchAgents/dev.mcpwatchdog.watchdog.plist"},
		{"launchagent on linux for the test", LaunchAgent, "linux", "Library/LaunchAgents/dev.mcpwatchdog.watchdog.plist"},
		{"auto on darwin", Auto, "darwin", "Library/LaunchAgents/dev.mcpwatchdog.watchdog.plist"},
		{"xdg", XDG, "linux", ".config/autostart/mcp-watchdog.desktop"},
		{"auto on linux", Auto, "linux", ".config/autostart/mcp-watchdog.desktop"},
		{"systemd", Systemd, "linux", ".config/systemd/user/mcp-watchdog.service"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			exe := exeFor(t, tc.kind)
			o := Options{Kind: tc.kind, Home: home, Exe: exe, GOOS: tc.goos, Getenv: noEnv}
			want := filepath.Join(home, tc.rel)
			roundTrip(t, o, want)
		})
	}
}

// roundTrip enables o's autostart file, checks it is written once at want
// with mode 0644 and reported as current, and disables it again.
func roundTrip(t *testing.T, o Options, want string) {
	st, err := Status(o)
	if err != nil || st.Enabled || st.Path != want {
		t.Fatalf("before enable: %+v, %v", st, err)
	}
	p, err := Enable(o)
	if err != nil || p != want {
		t.Fatalf("Enable = %q, %v; want %q", p, err, want)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("file: %v %v", fi, err)
	}
	st, err = Status(o)
	if err != nil || !st.Enabled || !st.PointsHere || !st.Current || st.Exe != o.Exe {
		t.Fatalf("after enable: %+v, %v (exe %q)", st, err, o.Exe)
	}
	// Idempotent: a second enable leaves the same bytes and no temp files.
	before, _ := os.ReadFile(p)
	if _, err := Enable(o); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(p)
	if string(before) != string(after) {
		t.Fatal("second enable changed the file")
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Fatalf("directory holds %d entries, want only the file", len(ents))
	}
	if _, err := Disable(o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("file still there: %v", err)
	}
	if st, err = Status(o); err != nil || st.Enabled {
		t.Fatalf("after disable: %+v, %v", st, err)
	}
	if _, err := Disable(o); err != nil { // absent is fine
		t.Fatalf("second disable: %v", err)
	}
}

// A file written for another binary is reported as such, and enable
// rewrites it for this one.
func TestStatusOtherBinary(t *testing.T) {
	t.Parallel()
	for _, k := range []Kind{LaunchAgent, XDG, Systemd} {
		t.Run(k.String(), func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			old, cur := plainExe(t), exeFor(t, k)
			if _, err := Enable(Options{Kind: k, Home: home, Exe: old, GOOS: "linux", Getenv: noEnv}); err != nil {
				t.Fatal(err)
			}
			o := Options{Kind: k, Home: home, Exe: cur, GOOS: "linux", Getenv: noEnv}
			st, err := Status(o)
			if err != nil || !st.Enabled || st.PointsHere || st.Current || st.Exe != old {
				t.Fatalf("status: %+v, %v", st, err)
			}
			if _, err := Enable(o); err != nil {
				t.Fatal(err)
			}
			if st, _ := Status(o); !st.PointsHere || st.Exe != cur {
				t.Fatalf("after re-enable: %+v", st)
			}
		})
	}
}

// The path written is the real binary: symlinks resolved.
func TestEnableResolvesSymlinks(t *testing.T) {
	t.Parallel()
	home, exe := t.TempDir(), plainExe(t)
	link := filepath.Join(t.TempDir(), "wd-link")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	o := Options{Kind: XDG, Home: home, Exe: link, GOOS: "linux", Getenv: noEnv}
	if _, err := Enable(o); err != nil {
		t.Fatal(err)
	}
	st, err := Status(o)
	realExe, _ := filepath.EvalSymlinks(exe)
	if err != nil || st.Exe != realExe || !st.PointsHere {
		t.Fatalf("status %+v, %v; want exe %q", st, err, realExe)
	}
}

func TestXDGConfigHome(t *testing.T) {
	t.Parallel()
	home, cfg := t.TempDir(), t.TempDir()
	tests := []struct {
		env  string
		kind Kind
		want string
	}{
		{cfg, XDG, filepath.Join(cfg, "autostart", "mcp-watchdog.desktop")},
		{cfg, Systemd, filepath.Join(cfg, "systemd", "user", "mcp-watchdog.service")},
		{"relative/ignored", XDG, filepath.Join(home, ".config", "autostart", "mcp-watchdog.desktop")},
	}
	for _, tc := range tests {
		getenv := func(k string) string {
			if k == "XDG_CONFIG_HOME" {
				return tc.env
			}
			return ""
		}
		st, err := Status(Options{Kind: tc.kind, Home: home, Exe: plainExe(t), GOOS: "linux", Getenv: getenv})
		if err != nil || st.Path != tc.want {
			t.Errorf("%q %v: path %q, %v; want %q", tc.env, tc.kind, st.Path, err, tc.want)
		}
	}
}

// Disable for systemd also removes the links `systemctl --user enable`
// made (and those of an older watchdog's unit), and Status reports them.
func TestSystemdWantsLink(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	o := Options{Kind: Systemd, Home: home, Exe: plainExe(t), GOOS: "linux", Getenv: noEnv}
	p, err := Enable(o)
	if err != nil {
		t.Fatal(err)
	}
	var links []string
	for _, target := range []string{"default.target", "graphical-session.target"} { // today's, and older watchdogs'
		wants := filepath.Join(filepath.Dir(p), target+".wants")
		if err := os.MkdirAll(wants, 0o755); err != nil {
			t.Fatal(err)
		}
		links = append(links, filepath.Join(wants, UnitName))
		if err := os.Symlink(p, links[len(links)-1]); err != nil {
			t.Fatal(err)
		}
	}
	if st, _ := Status(o); !st.Linked || !st.Restarts {
		t.Fatalf("status %+v: want Linked and Restarts", st)
	}
	if _, err := Disable(o); err != nil {
		t.Fatal(err)
	}
	for _, link := range links {
		if _, err := os.Lstat(link); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("wants link left behind: %v", err)
		}
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	tests := []struct {
		name string
		o    Options
		want error
	}{
		{"systemd on darwin", Options{Kind: Systemd, Home: home, Exe: plainExe(t), GOOS: "darwin"}, ErrUnsupported},
		{"unknown kind", Options{Kind: Kind(9), Home: home, Exe: plainExe(t), GOOS: "linux"}, ErrUnsupported},
		{"missing binary", Options{Kind: XDG, Home: home, Exe: filepath.Join(home, "nope"), GOOS: "linux"}, os.ErrNotExist},
	}
	for _, tc := range tests {
		if _, err := Enable(tc.o); !errors.Is(err, tc.want) {
			t.Errorf("%s: Enable err = %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := Render(XDG, "/bin/a\nb"); !errors.Is(err, ErrBadPath) {
		t.Errorf("newline in path: %v, want ErrBadPath", err)
	}
	if _, err := Render(Systemd, `/opt/it's/watchdog`); !errors.Is(err, ErrBadPath) {
		t.Errorf("quote in a unit's executable: %v, want ErrBadPath", err)
	}
	if got := Kind(9).String(); !strings.Contains(got, "9") {
		t.Errorf("Kind(9).String() = %q", got)
	}
}

// The zero Options is this process: its binary, its home.
func TestDefaults(t *testing.T) {
	t.Parallel()
	st, err := Status(Options{Kind: XDG, Home: t.TempDir(), GOOS: "linux", Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	if st.Enabled || !strings.HasSuffix(st.Path, "mcp-watchdog.desktop") {
		t.Fatalf("%+v", st)
	}
}
