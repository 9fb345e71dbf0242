//go:build linux

package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// InstallHint is what CI and developers need for this test.
const InstallHint = "apt-get install -y xvfb dbus haskell-status-notifier-item-utils haskell-gtk-sni-tray-utils libglib2.0-bin x11-apps dunst xdotool"

var tools = []string{"Xvfb", "dbus-daemon", "dbus-run-session", "status-notifier-watcher", "gtk-sni-tray-standalone", "xwd",
	"dunst", "dunstctl", "xdotool"}

// requireTools fails (never skips) when a desktop tool is missing.
func requireTools(t *testing.T) {
	t.Helper()
	if err := missingTools(exec.LookPath); err != nil {
		t.Fatal(err)
	}
}

// missingTools names the tools look cannot find, with the install command.
func missingTools(look func(string) (string, error)) error {
	var missing []string
	for _, tool := range tools {
		if _, err := look(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("desktop test needs %s; install with: %s", strings.Join(missing, ", "), InstallHint)
	}
	return nil
}

// desktop is a headless desktop: an X server, a session bus, a
// StatusNotifierWatcher and a tray host, all stopped at the test's end.
type desktop struct {
	display, busAddr string
	conn             *dbus.Conn
	logDir           string
}

func (d *desktop) env() []string {
	return append(os.Environ(), "DISPLAY="+d.display, "DBUS_SESSION_BUS_ADDRESS="+d.busAddr,
		"XDG_RUNTIME_DIR="+d.logDir, "NO_AT_BRIDGE=1")
}

func startDesktop(t *testing.T) *desktop {
	t.Helper()
	return startDesktopSized(t, "640x240")
}

// startDesktopSized is startDesktop on a screen of size ("WxH").
func startDesktopSized(t *testing.T, size string) *desktop {
	t.Helper()
	requireTools(t)
	d := &desktop{logDir: t.TempDir()}
	d.display = ":" + firstLine(t, d, "Xvfb", []string{"-displayfd", "1", "-screen", "0", size + "x24", "-nolisten", "tcp"})
	d.busAddr = firstLine(t, d, "dbus-daemon", []string{"--session", "--nofork", "--print-address=1"})
	conn, err := dbus.Connect(d.busAddr)
	if err != nil {
		t.Fatalf("connect to the session bus %s: %v", d.busAddr, err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	d.conn = conn
	d.start(t, "status-notifier-watcher")
	waitFor(t, "the StatusNotifierWatcher on the bus", func() (bool, string) {
		return d.hasOwner("org.kde.StatusNotifierWatcher"), ""
	})
	d.start(t, "gtk-sni-tray-standalone")
	waitFor(t, "a StatusNotifierHost registered with the watcher", func() (bool, string) {
		v, err := d.watcherProp("IsStatusNotifierHostRegistered")
		b, _ := v.Value().(bool)
		return err == nil && b, fmt.Sprint(v, err)
	})
	return d
}

// firstLine starts a daemon that prints one line when it is ready (the
// display number, the bus address) and returns that line.
func firstLine(t *testing.T, d *desktop, name string, args []string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Env = d.env()
	cmd.Stderr = d.logFile(t, name)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	stop(t, cmd)
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Scan()
		lines <- strings.TrimSpace(sc.Text())
		for sc.Scan() { // keep draining so the daemon never blocks on stdout
		}
	}()
	select {
	case l := <-lines:
		if l == "" {
			t.Fatalf("%s printed nothing; see %s", name, d.logDir)
		}
		return l
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not become ready; see %s", name, d.logDir)
	}
	return ""
}

func (d *desktop) start(t *testing.T, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Env = d.env()
	cmd.Stdout = d.logFile(t, name)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	stop(t, cmd)
	return cmd
}

// stop ends cmd at cleanup (in reverse order of start: app before host
// before watcher before bus before X).
func stop(t *testing.T, cmd *exec.Cmd) {
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
}

func (d *desktop) logFile(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(d.logDir, filepath.Base(name)+".log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = f.Close()
		if t.Failed() {
			b, _ := os.ReadFile(f.Name())
			t.Logf("--- %s ---\n%s", filepath.Base(f.Name()), tail(string(b), 3000))
		}
	})
	return f
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func (d *desktop) hasOwner(name string) bool {
	var ok bool
	err := d.conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&ok)
	return err == nil && ok
}

func (d *desktop) watcherProp(name string) (dbus.Variant, error) {
	return d.conn.Object("org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher").
		GetProperty("org.kde.StatusNotifierWatcher." + name)
}

// waitFor polls cond generously: the machine may be loaded.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		ok, info := cond()
		if ok {
			return
		}
		last = info
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s (last seen: %s)", what, last)
}

// buildTrayApp builds the scripted tray program into a temp dir.
func buildTrayApp(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "trayapp")
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.CommandContext(t.Context(), "go", "build", "-race", "-o", bin, "./internal/trayapp")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build trayapp: %v\n%s", err, out)
	}
	return bin
}
