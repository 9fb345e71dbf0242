//go:build linux

package e2e

import (
	"context"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// notifyCall is one Notify the bus carried, and the id its reply gave.
type notifyCall struct {
	sender, summary string
	replaces, id    uint32
	actions         []string
	serial          uint32
}

// notifyMonitor eavesdrops on the session bus (BecomeMonitor): every
// Notify method call and the id the notification service answered.
type notifyMonitor struct {
	mu    sync.Mutex
	calls []*notifyCall
}

func monitorNotify(t *testing.T, d *desktop) *notifyMonitor {
	t.Helper()
	conn, err := dbus.Connect(d.busAddr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	rules := []string{"type='method_call',interface='org.freedesktop.Notifications',member='Notify'", "type='method_return'"}
	if err := conn.BusObject().Call("org.freedesktop.DBus.Monitoring.BecomeMonitor", 0, rules, uint32(0)).Err; err != nil {
		t.Fatalf("become a bus monitor: %v", err)
	}
	m := &notifyMonitor{}
	ch := make(chan *dbus.Message, 256)
	conn.Eavesdrop(ch)
	go func() {
		for msg := range ch {
			m.see(msg)
		}
	}()
	return m
}

func (m *notifyMonitor) see(msg *dbus.Message) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch msg.Type {
	case dbus.TypeMethodCall:
		if len(msg.Body) < 6 {
			return
		}
		c := &notifyCall{serial: msg.Serial()}
		c.sender, _ = msg.Headers[dbus.FieldSender].Value().(string)
		c.replaces, _ = msg.Body[1].(uint32)
		c.summary, _ = msg.Body[3].(string)
		c.actions, _ = msg.Body[5].([]string)
		m.calls = append(m.calls, c)
	case dbus.TypeMethodReply:
		serial, _ := msg.Headers[dbus.FieldReplySerial].Value().(uint32)
		dest, _ := msg.Headers[dbus.FieldDestination].Value().(string)
		for _, c := range m.calls {
			if c.serial == serial && c.sender == dest && len(msg.Body) == 1 {
				c.id, _ = msg.Body[0].(uint32)
			}
		}
	}
}

// from is every Notify a title matching sub, in order.
func (m *notifyMonitor) matching(sub string) []notifyCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []notifyCall
	for _, c := range m.calls {
		if strings.Contains(c.summary, sub) {
			out = append(out, *c)
		}
	}
	return out
}

func (m *notifyMonitor) summaries() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, c := range m.calls {
		out = append(out, c.summary)
	}
	return out
}

// startDunst runs dunst on the desktop with a dmenu that picks the menu
// line naming pick: `dunstctl context` then presses that button.
func startDunst(t *testing.T, d *desktop, pick string) {
	t.Helper()
	dir := t.TempDir()
	dmenu := filepath.Join(dir, "pick")
	script := fmt.Sprintf("#!/bin/sh\n# stands in for dmenu: choose the line naming %[1]q\ntee %[2]q | grep -m1 -F %[1]q\n",
		pick, filepath.Join(d.logDir, "dmenu-lines.log"))
	if err := os.WriteFile(dmenu, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "dunstrc")
	body := fmt.Sprintf("[global]\n    dmenu = %s\n    timeout = 0\n    origin = top-right\n    offset = 12x40\n    width = 330\n    font = DejaVu Sans 9\n", dmenu)
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	d.start(t, "dunst", "-config", conf)
	waitFor(t, "dunst owning org.freedesktop.Notifications", func() (bool, string) {
		return d.hasOwner("org.freedesktop.Notifications"), ""
	})
}

// dunstctl runs one dunstctl command on the desktop's bus.
func dunstctl(t *testing.T, d *desktop, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "dunstctl", args...)
	cmd.Env = d.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("dunstctl %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestDunstOneBubblePerIncident: on dunst, a real notification service,
// one incident is one bubble: the loss is one Notify, every later one of
// the incident (its heal failure, its recovery) replaces it (same id), and
// a single bubble is on screen after. The loss bubble's Heal now, pressed
// through dunst's own context menu, makes the daemon heal; a press forged
// by another client is not believed.
func TestDunstOneBubblePerIncident(t *testing.T) {
	d := startDesktopSized(t, "900x420")
	calls := monitorNotify(t, d)
	startDunst(t, d, "Heal now")
	srv, state, stopDaemon := startRig(t, d, t.TempDir(), 2*time.Second)
	defer srv.Close()

	ctx := context.Background()
	cs, err := demoserver.Connect(ctx, srv.URL(), "dsh-mcp-client")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	waitFor(t, "the loss bubble and dunst's answer", func() (bool, string) {
		got := calls.matching("session lost")
		return len(got) == 1 && got[0].id != 0, fmt.Sprint(calls.summaries())
	})
	lost := calls.matching("session lost")[0]
	if lost.replaces != 0 || !slices.Contains(lost.actions, "heal") {
		t.Fatalf("the loss bubble: %+v; want a new bubble with a Heal now button", lost)
	}
	pictureWithMenu(t, d)
	pressHealNow(t, d, state, lost.id)

	cs2, err := demoserver.Connect(ctx, srv.URL(), "dsh-mcp-client")
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	checkReplaced(t, calls, lost.id)
	if n := dunstctl(t, d, "count", "displayed"); n != "1" {
		t.Errorf("dunst shows %s bubbles; want the one of the incident", n)
	}
	stopDaemon()
}

// pressHealNow forges a press first (it must do nothing), then presses
// Heal now through dunst's context menu until the daemon heals.
func pressHealNow(t *testing.T, d *desktop, state string, id uint32) {
	t.Helper()
	if err := d.conn.Emit("/org/freedesktop/Notifications", "org.freedesktop.Notifications.ActionInvoked", id, "heal"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if got := journal(t, state, "heal_started"); len(got) != 0 {
		t.Fatalf("a forged ActionInvoked made the daemon heal: %v", got)
	}
	waitFor(t, "heal_started from the bubble's Heal now", func() (bool, string) {
		if len(journal(t, state, "heal_started")) > 0 {
			return true, ""
		}
		return false, dunstctl(t, d, "context")
	})
}

// checkReplaced waits for the recovery and checks every Notify after the
// loss replaced the loss bubble: the unpatched client cannot heal itself,
// so "healing failed" came between, in the same bubble.
func checkReplaced(t *testing.T, calls *notifyMonitor, lostID uint32) {
	t.Helper()
	waitFor(t, "the recovery bubble", func() (bool, string) {
		got := calls.matching("recovered")
		return len(got) == 1 && got[0].id != 0, fmt.Sprint(calls.summaries())
	})
	time.Sleep(time.Second) // a duplicate, if any, arrives before counting
	all := calls.matching("nowledge-mem")
	for _, c := range all[1:] {
		if c.replaces != lostID || c.id != lostID {
			t.Errorf("%q was Notify(replaces_id %d) → %d; want it to replace the loss bubble %d", c.summary, c.replaces, c.id, lostID)
		}
	}
	if len(all) < 2 || len(all) != len(calls.summaries()) || !strings.Contains(all[len(all)-1].summary, "recovered") {
		t.Errorf("Notify calls %q; want the incident's only, ending with its recovery", calls.summaries())
	}
}

// pictureWithMenu opens the tray's menu with a click on its lost icon
// (found by its red on screen, as a person would) while the loss bubble
// shows, and saves that screen: the README's picture when
// WATCHDOG_SCREENSHOT names where. The menu is closed again after.
func pictureWithMenu(t *testing.T, d *desktop) {
	t.Helper()
	before, x, y := lostIconOnScreen(t, d)
	xdotool(t, d, "mousemove", fmt.Sprint(x), fmt.Sprint(y), "click", "1")
	var shot image.Image
	waitFor(t, "the menu drawn below the icon", func() (bool, string) {
		var err error
		if shot, err = tryGrab(t, d); err != nil {
			return false, err.Error()
		}
		changed := changedPixels(before, shot)
		return changed > 2000, fmt.Sprintf("%d pixels changed", changed)
	})
	time.Sleep(300 * time.Millisecond) // the menu's last items
	shot = grab(t, d)
	savePNG(t, shot, "screenshot-linux.png")
	xdotool(t, d, "key", "Escape")
}

func xdotool(t *testing.T, d *desktop, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "xdotool", args...)
	cmd.Env = d.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool %v: %v: %s", args, err, out)
	}
}

func changedPixels(a, b image.Image) int {
	n := 0
	bo := a.Bounds()
	for y := bo.Min.Y; y < bo.Max.Y; y += 2 {
		for x := bo.Min.X; x < bo.Max.X; x += 2 {
			if a.At(x, y) != b.At(x, y) {
				n++
			}
		}
	}
	return n
}
