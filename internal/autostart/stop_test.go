package autostart

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// stopAll is what Stop asks of systemd for the units Supervise installs
// for a config with proxies: every one, the socket units included (one
// left listening would start its service again), without waiting (the
// daemon asking is in the unit it stops).
const stopAll = "systemctl --user stop --no-block mcp-watchdog.socket mcp-watchdog.service mcp-watchdog-proxy.socket mcp-watchdog-proxy.service"

// Where systemd runs for the user, Stop stops every installed unit now
// and disables none: the units and their files stay, so the next login
// starts them again.
func TestStopSystemd(t *testing.T) {
	t.Parallel()
	rec, o := supervised(t)
	res, err := Stop(context.Background(), o)
	if got := rec.take(); err != nil || !slices.Equal(got, []string{stopAll}) {
		t.Fatalf("Stop = %+v, %v, commands %q; want %q", res, err, got, stopAll)
	}
	if res.Kind != Systemd || res.Reason != "" || !slices.Equal(res.Did, []string{stopAll}) || len(res.Files) != 4 {
		t.Errorf("Stop = %+v; want systemd, the stop in Did, no reason, the four files", res)
	}
	if st, err := Status(o); err != nil || !st.Enabled || !st.Current {
		t.Errorf("after Stop, Status = %+v, %v; want the units still installed and current", st, err)
	}
}

// A stop systemctl refuses is the Reason, naming the command and what it
// said; no other command is tried in its place.
func TestStopSystemdFails(t *testing.T) {
	t.Parallel()
	rec, o := supervised(t)
	rec.fail = map[string]bool{stopAll: true}
	res, err := Stop(context.Background(), o)
	if got := rec.take(); err != nil || !slices.Equal(got, []string{stopAll}) || len(res.Did) != 0 ||
		!strings.Contains(res.Reason, "`"+stopAll+"` failed") || !strings.Contains(res.Reason, "Unit not loaded.") {
		t.Fatalf("Stop = %+v, %v, commands %q; want the failure as the reason", res, err, got)
	}
}

// The real systemctl, pointed at a runtime directory whose private socket
// is no systemd (never the machine's user manager): it fails, and the
// reason says so.
func TestStopRealSystemctlFails(t *testing.T) {
	t.Parallel()
	_, o := supervised(t)
	o.Run = nil
	res, err := Stop(context.Background(), o)
	if err != nil || !strings.Contains(res.Reason, "`"+stopAll+"` failed") || len(res.Did) != 0 {
		t.Fatalf("Stop = %+v, %v; want systemctl's failure as the reason", res, err)
	}
	t.Logf("reason: %s", res.Reason)
}

// Only the installed units are stopped: without proxies, the daemon's
// service and socket unit.
func TestStopSystemdWithoutProxies(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	o := linuxOptions(t, userManager(t), rec)
	o.Listen = nil
	if _, err := Supervise(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	rec.take()
	res, err := Stop(context.Background(), o)
	want := []string{"systemctl --user stop --no-block mcp-watchdog.socket mcp-watchdog.service"}
	if got := rec.take(); err != nil || res.Reason != "" || !slices.Equal(got, want) {
		t.Fatalf("Stop = %+v, %v, commands %q; want %q", res, err, got, want)
	}
}

// Nothing to ask: no unit installed, no user manager, or only the XDG
// entry. Nothing is run, and the reason says why.
func TestStopWithNothingToAsk(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	noUnits := linuxOptions(t, userManager(t), rec)
	noUnits.Kind = Systemd
	unreachable := linuxOptions(t, "", rec)
	unreachable.Kind = Systemd
	xdg := linuxOptions(t, t.TempDir(), rec)
	for _, tc := range []struct {
		name, reason string
		o            Options
	}{
		{"no unit installed", "no unit of the watchdog is installed", noUnits},
		{"no user manager", Systemd.StopCommand(), unreachable},
		{"the XDG entry", "no supervisor", xdg},
	} {
		res, err := Stop(context.Background(), tc.o)
		if got := rec.take(); err != nil || len(got) != 0 || !strings.Contains(res.Reason, tc.reason) {
			t.Errorf("%s: Stop = %+v, %v, commands %q; want none run and a reason with %q", tc.name, res, err, got, tc.reason)
		}
	}
}

// On macOS Stop boots out the proxy process's LaunchAgent, then the
// daemon's (last: the daemon asking ends with it); the plists stay, so
// launchd loads both again at the next login.
func TestStopLaunchAgent(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	o := Options{Home: t.TempDir(), Exe: plainExe(t), GOOS: "darwin", Getenv: noEnv, Listen: []string{"127.0.0.1:14300"}, Run: rec.run}
	if _, err := Supervise(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	rec.take()
	res, err := Stop(context.Background(), o)
	domain := "gui/" + itoa(os.Getuid())
	want := []string{"launchctl bootout " + domain + "/" + ProxyLabel, "launchctl bootout " + domain + "/" + BundleID}
	if got := rec.take(); err != nil || res.Kind != LaunchAgent || res.Reason != "" || !slices.Equal(got, want) {
		t.Fatalf("Stop = %+v, %v, commands %q; want %q", res, err, got, want)
	}
	for _, f := range []string{BundleID + ".plist", ProxyLabel + ".plist"} {
		if _, err := os.Stat(filepath.Join(o.Home, "Library", "LaunchAgents", f)); err != nil {
			t.Errorf("%s after Stop: %v; want it kept for the next login", f, err)
		}
	}
	// launchd is macOS's: elsewhere there is nothing to boot out.
	o.GOOS = "linux"
	o.Kind = LaunchAgent
	if res, err := Stop(context.Background(), o); err != nil || res.Reason == "" || len(rec.take()) != 0 {
		t.Errorf("a LaunchAgent off macOS: Stop = %+v, %v; want nothing run and a reason", res, err)
	}
}
