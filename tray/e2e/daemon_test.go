//go:build linux

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/notify"
)

// TestDesktopDaemon runs `watchdog run` with its tray on the headless
// desktop against a real Go SDK server whose sessions expire after 2 s:
// the item's tooltip and icon go lost and back, the menu lists the server
// with its state, Heal now through dbusmenu makes the daemon start healing,
// and the loss and the recovery are notified exactly once each.
func TestDesktopDaemon(t *testing.T) {
	d := startDesktop(t)
	notes := listenNotifications(t, d.conn)
	srv, state, stopDaemon := startRig(t, d, t.TempDir(), 2*time.Second)
	defer srv.Close()
	it := registeredItem(t, d)

	ctx := context.Background()
	cs, err := demoserver.Connect(ctx, srv.URL(), "dsh-mcp-client")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	waitFor(t, "the healthy tooltip", func() (bool, string) {
		tt := it.tooltip()
		return strings.Contains(tt, "healthy"), tt
	})
	healthy := it.pixmap()

	// The session sits idle past 2 s: the server ends it, the tray shows it.
	waitFor(t, "the lost tooltip and icon", func() (bool, string) {
		tt := it.tooltip()
		return strings.Contains(tt, "lost") && it.pixmap() != healthy, tt
	})
	waitMenu(t, it, "nowledge-mem: lost", "Heal now", "Quit")
	screenshot(t, d)
	clickHealNow(t, it, state)

	// The host reconnects: a new session of its client is the recovery.
	cs2, err := demoserver.Connect(ctx, srv.URL(), "dsh-mcp-client")
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	waitFor(t, "the recovered tooltip and icon", func() (bool, string) {
		tt := it.tooltip()
		return !strings.Contains(tt, "lost") && !strings.Contains(tt, "healing") && it.pixmap() == healthy, tt
	})
	waitMenu(t, it, "nowledge-mem: healthy")
	waitFor(t, "the recovery notification", func() (bool, string) {
		return count(notes.summaries(), "recovered") == 1, fmt.Sprint(notes.summaries())
	})
	time.Sleep(time.Second) // a duplicate, if any, arrives before counting
	got := notes.summaries()
	if count(got, "session lost") != 1 || count(got, "recovered") != 1 {
		t.Fatalf("notifications %q: want exactly one for the loss and one for the recovery", got)
	}
	stopDaemon()
	checkNotifiedThreads(t, state)
}

// checkNotifiedThreads: the journal's record of each loss or recovered
// bubble names the incident it told (notify.Thread of its loss), so a
// restart after a kill -9 knows which news went out.
func checkNotifiedThreads(t *testing.T, state string) {
	t.Helper()
	threads := map[string]bool{}
	for _, ev := range journal(t, state, "session_lost") {
		at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(ev["time"]))
		if err == nil && ev["incident"] == true {
			threads[notify.Thread(fmt.Sprint(ev["server"]), at)] = true
		}
	}
	var told []string
	for _, ev := range journal(t, state, "notified") {
		if about := fmt.Sprint(ev["about"]); about == notify.AboutLost || about == notify.AboutRecovered {
			told = append(told, about)
			if !threads[fmt.Sprint(ev["thread"])] {
				t.Errorf("the record of %q names the incident %v; the journal's losses open %v", ev["title"], ev["thread"], threads)
			}
		}
	}
	if !slices.Equal(told, []string{notify.AboutLost, notify.AboutRecovered}) {
		t.Errorf("notified records %q, want the loss then the recovery", told)
	}
}

// startRig runs a Go SDK server whose sessions expire after idle and the
// watchdog (with its tray) watching it; it returns the server, the state
// directory and the daemon's stop.
func startRig(t *testing.T, d *desktop, dir string, idle time.Duration) (*demoserver.Server, string, func()) {
	t.Helper()
	store := filepath.Join(dir, "mem", "mcp-sessions.json")
	os.MkdirAll(filepath.Dir(store), 0o700)
	srv, err := demoserver.Start(context.Background(), demoserver.Options{IdleTimeout: idle,
		StorePath: store, LogPath: filepath.Join(dir, "mem", "server.log")})
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state")
	return srv, state, startWatchdog(t, d, dir, writeDaemonConfig(t, dir, srv.URL(), store, idle.String()), state)
}

// writeDaemonConfig writes the daemon's config.toml into dir: notifications
// on, no host process to watch, one server at url whose sessions idle out
// after idle, its store at store and its log in dir/mem.
func writeDaemonConfig(t *testing.T, dir, url, store, idle string) string {
	t.Helper()
	cfg := filepath.Join(dir, "config.toml")
	body := fmt.Sprintf(`notify = true
[host]
client_name = "dsh-mcp-client"
process = ""
port = 0
restart = ["sleep", "30"]
[[server]]
name = "nowledge-mem"
url = %q
store = %q
logs = [%q]
idle_timeout = %q
keep_warm = false
`, url, store, filepath.Join(dir, "mem", "server.log"), idle)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// clickHealNow clicks the menu's Heal now through dbusmenu until the
// daemon journals heal_started (a click before the menu has the item is
// lost, so it clicks again).
func clickHealNow(t *testing.T, it item, state string) {
	t.Helper()
	waitFor(t, "heal_started from clicking Heal now", func() (bool, string) {
		if len(journal(t, state, "heal_started")) > 0 {
			return true, ""
		}
		m, err := it.layout()
		if err != nil {
			return false, err.Error()
		}
		heal, ok := m.find("Heal now")
		if !ok {
			return false, fmt.Sprint(m.labels())
		}
		return false, fmt.Sprint(it.click(heal.ID))
	})
}

func count(list []string, sub string) int {
	n := 0
	for _, s := range list {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

// startWatchdog builds and runs `watchdog run` (with its tray) on the
// desktop; the returned func stops it with SIGTERM.
func startWatchdog(t *testing.T, d *desktop, dir, cfg, state string) func() {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "watchdog")
	_, file, _, _ := runtime.Caller(0)
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "./cmd/watchdog")
	build.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build watchdog: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(t.Context(), bin, "run", "--config", cfg, "--state-dir", state)
	cmd.Env = append(d.env(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	logf := d.logFile(t, "watchdog")
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			b, _ := os.ReadFile(logf.Name())
			t.Errorf("watchdog did not stop on SIGTERM:\n%s", tail(string(b), 3000))
		}
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			stop()
		}
	})
	waitFor(t, "the watchdog saying it runs with a tray", func() (bool, string) {
		b, _ := os.ReadFile(logf.Name())
		return strings.Contains(string(b), "running with a tray"), tail(string(b), 500)
	})
	return stop
}

// journal reads the daemon's events of one kind.
func journal(t *testing.T, state, kind string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(state, "events.jsonl"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev map[string]any
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev["kind"] == kind {
			out = append(out, ev)
		}
	}
	return out
}

// TestMenuLineKeepsTime: the menu's server line moves on between events
// (it once read "idle 0s of 30s" 9 s into an idle session, while status
// said 9 s): it starts at "<10s" and, refreshed every 10 s in 10 s steps,
// 21 s in it reads 10 s or more, never a stale second count. The session
// idles out after a minute, so it is not at risk yet (a 30 s one is, from
// 21 s on, now that the daemon wakes at that deadline itself).
func TestMenuLineKeepsTime(t *testing.T) {
	d := startDesktop(t)
	listenNotifications(t, d.conn)
	srv, _, stopDaemon := startRig(t, d, t.TempDir(), time.Minute)
	defer srv.Close()
	it := registeredItem(t, d)
	cs, err := demoserver.Connect(context.Background(), srv.URL(), "dsh-mcp-client")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	waitMenu(t, it, "nowledge-mem: healthy · idle <10s of 1m")
	time.Sleep(21 * time.Second)
	m, err := it.layout()
	if err != nil {
		t.Fatal(err)
	}
	if l := slices.IndexFunc(m.labels(), func(l string) bool {
		return l == "nowledge-mem: healthy · idle 10s of 1m" || l == "nowledge-mem: healthy · idle 20s of 1m"
	}); l < 0 {
		t.Fatalf("21 s into the idle session the menu reads %q", m.labels())
	}
	stopDaemon()
}
