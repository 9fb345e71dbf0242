package tray

import (
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

func find(items []item, title string) (item, bool) {
	for _, it := range items {
		if it.Title == title {
			return it, true
		}
		if c, ok := find(it.Children, title); ok {
			return c, true
		}
	}
	return item{}, false
}

func TestMenuItems(t *testing.T) {
	t.Parallel()
	v := View{Now: now, KeepWarm: map[string]bool{"m": true}, AutostartOn: true,
		Status: health.Status{Host: health.HostStatus{Name: "DSH", Running: true, Patch: "applied"},
			Servers: []health.ServerStatus{srv("m", health.Lost, 0, 0)}}}
	items := menuItems(v)
	if items[0].Title != "m: lost" || len(items[0].Children) != 2 {
		t.Fatalf("first item = %+v, want the server line with Heal now and Keep warm", items[0])
	}
	tests := []struct {
		title    string
		cmd      *Command
		disabled bool
		checked  bool
	}{
		{"Heal now", &Command{Kind: CmdHeal, Server: "m"}, false, false},
		{"Keep warm", &Command{Kind: CmdKeepWarm, Server: "m", On: false}, false, true},
		{"Restart DSH", &Command{Kind: CmdRestartHost}, false, false},
		{"Client patch: applied", nil, true, false},
		{"Apply client patch…", &Command{Kind: CmdPatchApply}, true, false},
		{"Revert patch", &Command{Kind: CmdPatchRevert}, false, false},
		{"Pause notifications for 1 hour", &Command{Kind: CmdPauseNotifications, On: true}, false, false},
		{"Open timeline", &Command{Kind: CmdOpenTimeline}, false, false},
		{"Start at login", &Command{Kind: CmdAutostart, On: false}, false, true},
		{"Quit", &Command{Kind: CmdQuit}, false, false},
	}
	for _, tc := range tests {
		it, ok := find(items, tc.title)
		if !ok {
			t.Errorf("no %q in the menu", tc.title)
			continue
		}
		if (it.Cmd == nil) != (tc.cmd == nil) || (it.Cmd != nil && *it.Cmd != *tc.cmd) {
			t.Errorf("%q: cmd %+v, want %+v", tc.title, it.Cmd, tc.cmd)
		}
		if it.Disabled != tc.disabled || it.Checked != tc.checked {
			t.Errorf("%q: disabled %v checked %v, want %v %v", tc.title, it.Disabled, it.Checked, tc.disabled, tc.checked)
		}
	}
}

func TestMenuUnpatchedOffersApply(t *testing.T) {
	t.Parallel()
	items := menuItems(View{Status: health.Status{Host: health.HostStatus{Patch: "unpatched"}}})
	if it, _ := find(items, "Apply client patch…"); it.Disabled {
		t.Error("Apply disabled on an unpatched client")
	}
	if it, _ := find(items, "Revert patch"); !it.Disabled {
		t.Error("Revert enabled on an unpatched client")
	}
	if _, ok := find(items, "No servers configured"); !ok {
		t.Error("empty status shows no placeholder line")
	}
}

func TestUpdateCoalescesAndCommandsDrop(t *testing.T) {
	t.Parallel()
	tr := New(Options{})
	tr.Update(View{Paused: true})
	tr.Update(View{AutostartOn: true}) // must not block: one rebuild pending at most
	if v := tr.current(); v.Paused || !v.AutostartOn {
		t.Fatalf("current view = %+v, want the newest", v)
	}
	for range cap(tr.cmds) + 5 { // never blocks when nobody reads
		tr.emit(t.Context(), Command{Kind: CmdQuit})
	}
	if got := len(tr.Commands()); got != cap(tr.cmds) {
		t.Fatalf("queued %d commands, want %d", got, cap(tr.cmds))
	}
}

// TestMenuOffersToProtectExposedHosts: a found host with exposed servers
// gets a Protect item naming them, whose click names the host; a host
// with none gets none, and a host whose client takes no patch is offered
// no patch.
func TestMenuOffersToProtectExposedHosts(t *testing.T) {
	t.Parallel()
	st := health.Status{Host: health.HostStatus{Name: "Cursor", Patch: "none"}, Hosts: []health.HostSummary{
		{Name: "Cursor", Servers: []health.HostServerSummary{{Name: "mem", Protection: "exposed"}, {Name: "files", Protection: "not-needed"}, {Name: "linear", Protection: "exposed"}}},
		{Name: "Codex CLI", Servers: []health.HostServerSummary{{Name: "mem", Protection: "self-healing"}}},
	}}
	items := menuItems(View{Status: st})
	it, ok := find(items, "Protect Cursor (mem, linear exposed)")
	if !ok || it.Cmd == nil || it.Cmd.Kind != CmdProtect || it.Cmd.Host != "Cursor" {
		t.Fatalf("protect item %+v (found %v)", it, ok)
	}
	for _, title := range []string{"Protect Codex CLI (mem exposed)", "Apply client patch…", "Revert patch"} {
		if _, ok := find(items, title); ok {
			t.Errorf("%q offered", title)
		}
	}
}

// TestMenuOffersNoRestartOfAOneShotHost: a host run per prompt has no
// process to restart; the menu does not offer it.
func TestMenuOffersNoRestartOfAOneShotHost(t *testing.T) {
	t.Parallel()
	for _, oneShot := range []bool{false, true} {
		items := menuItems(View{Status: health.Status{Host: health.HostStatus{Name: "Copilot CLI", Patch: "none", OneShot: oneShot}}})
		restart := false
		for _, it := range items {
			restart = restart || it.Cmd != nil && it.Cmd.Kind == CmdRestartHost
		}
		if restart == oneShot {
			t.Errorf("one-shot %v: the menu offers a restart: %v", oneShot, restart)
		}
	}
}
