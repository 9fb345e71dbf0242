package sessionbus

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNoBusStartsNone: with no session bus to be found, Connect fails and
// runs no dbus-launch (a stand-in on PATH would leave its mark): godbus's
// own ConnectSessionBus ran it, and each run left a dbus-daemon behind.
func TestNoBusStartsNone(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "launched")
	launch := "#!/bin/sh\necho run > " + mark + "\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "dbus-launch"), []byte(launch), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // no bus there
	if conn, err := Connect(); err == nil {
		_ = conn.Close()
		t.Fatal("connected to a session bus that does not exist")
	}
	if Available() {
		t.Fatal("Available with no bus")
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("dbus-launch was run: a dbus-daemon would be left behind")
	}
}
