package hosts

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"
)

// stdioAdoption is an adopted cell's watchdog and what adopt changed.
type stdioAdoption struct {
	prof host.Profile
	w    *Watchdog
	// before and adopted are the host's files before adopt, and as adopt
	// left them.
	before, adopted map[string][]byte
}

// adoptStdio starts a watchdog watching the host of p (and a Go SDK
// server of its own, so its config names a server that is there) and runs
// `watchdog hosts adopt HOST` with the rig's HOME, as a user would: the
// host's stdio entry then runs through `watchdog stdio`.
func adoptStdio(t *testing.T, r *Rig, p host.Profile) *stdioAdoption {
	t.Helper()
	dir := t.TempDir()
	r.Store, r.Log = filepath.Join(dir, "mcp-sessions.json"), filepath.Join(dir, "server.log")
	peer, err := demoserver.Start(t.Context(), demoserver.Options{StorePath: r.Store, LogPath: r.Log, OnEvent: r.onEvent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peer.Close() })
	r.Server = server{url: peer.URL()}
	a := &stdioAdoption{prof: p, w: r.StartWatchdog("peer", time.Hour, false, watchedHost(p.Name, "")), before: hostFiles(r, p)}
	if len(a.before) == 0 {
		t.Fatalf("%s keeps no file the watchdog finds under %s", p.Name, r.Home)
	}
	adopting.Lock()
	out, err := runWatchdog(t, r, a.w, "hosts", "adopt", p.Name, "--no-autostart")
	adopting.Unlock()
	if err != nil {
		t.Fatalf("watchdog hosts adopt %s: %v\n%s", p.Name, err, out)
	}
	t.Logf("watchdog hosts adopt %s:\n%s", p.Name, out)
	a.adopted = hostFiles(r, p)
	return a
}

// check holds the adopted cell to the rest of its goal, once the host
// exited: nothing of the server or its supervisor outlives the host, the
// journal has each crash and start again under the host's name, and
// `watchdog hosts release HOST` gives each file back byte for byte.
func (a *stdioAdoption) check(t *testing.T, r *Rig, got stdioRow) {
	t.Helper()
	if got.left > 0 {
		t.Errorf("%d processes of the server or its supervisor outlived %s", got.left, a.prof.Name)
	}
	a.checkJournal(t)
	held := hostFiles(r, a.prof)
	wrappers, _ := filepath.Glob(filepath.Join(a.w.State, "wrappers", "*")) // release removes them
	if out, err := runWatchdog(t, r, a.w, "hosts", "release", a.prof.Name); err != nil {
		t.Fatalf("watchdog hosts release %s: %v\n%s", a.prof.Name, err, out)
	}
	after := hostFiles(r, a.prof)
	for path, was := range a.before {
		want, how := was, "as it was before adopt"
		if !bytes.Equal(held[path], a.adopted[path]) {
			// The host rewrote its own file meanwhile (Claude Code, Qwen
			// Code do on a run): release must keep every byte of that,
			// and put back only the command adopt changed.
			want, how = unwrapped(held[path], wrappers, r.Stdio.Argv[0]), "as the host left it, its entry's command put back"
			t.Logf("%s rewrote %s during its run: release must give back its bytes, the command put back", a.prof.Name, path)
		}
		if now := after[path]; !bytes.Equal(now, want) {
			t.Errorf("release did not give %s back byte for byte (%s):\nwant:\n%s\nafter release:\n%s", path, how, want, now)
		}
	}
}

// checkJournal waits for the journal to have each kill's crash and start
// again (stdio_exited, stdio_restarted) of the server under the host.
func (a *stdioAdoption) checkJournal(t *testing.T) {
	t.Helper()
	count := func() (crashed, restarted int) {
		for _, ev := range daemontest.Journal(t, a.w.State) {
			if ev.Str("host") != a.prof.Name || ev.Str("server") != ServerName {
				continue
			}
			switch health.EventKind(ev.Str("kind")) {
			case health.EvStdioExited:
				crashed++
			case health.EvStdioRestarted:
				restarted++
			}
		}
		return crashed, restarted
	}
	deadline := time.Now().Add(stdioLinger)
	crashed, restarted := count()
	for (crashed < stdioKills || restarted < stdioKills) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond) // the journal has no event of its own to wait on
		crashed, restarted = count()
	}
	if crashed < stdioKills || restarted < stdioKills {
		t.Errorf("the journal has %d %s and %d %s of %s under %s; want %d each; the journal:\n%s", crashed, health.EvStdioExited,
			restarted, health.EvStdioRestarted, ServerName, a.prof.Name, stdioKills, journalText(a.w.State))
	}
}

// unwrapped is data with each of the wrappers adopt wrote named back as
// command.
func unwrapped(data []byte, wrappers []string, command string) []byte {
	for _, w := range wrappers {
		data = bytes.ReplaceAll(data, []byte(w), []byte(command))
	}
	return data
}

// journalText is the journal as it is, for a failure's message.
func journalText(state string) string {
	b, _ := os.ReadFile(filepath.Join(state, "events.jsonl"))
	return string(b)
}

// hostFiles are the host's files (as `watchdog hosts` finds them under
// the rig's HOME and project) that exist, and what each holds.
func hostFiles(r *Rig, p host.Profile) map[string][]byte {
	out := map[string][]byte{}
	for _, path := range find.Paths(p, stdioFindOptions(r)) {
		if b, err := os.ReadFile(path); err == nil {
			out[path] = b
		}
	}
	return out
}

// stdioFindOptions are the rig's find options with DSH_HOME the rig's
// HOME, where the rig keeps DSH's profiles.
func stdioFindOptions(r *Rig) find.Options {
	fo := r.findOptions()
	getenv := fo.Getenv
	fo.Getenv = func(k string) string {
		if k == "DSH_HOME" {
			return r.Home
		}
		return getenv(k)
	}
	return fo
}

// stdioEnv is the environment `watchdog` runs in for a cell: the rig's
// HOME and XDG folders, the watchdog's state and config, and none of the
// caller's variables that move a host's files.
func stdioEnv(r *Rig, w *Watchdog) []string {
	text := strings.Join([]string{"-XDG_", "-WATCHDOG_", "-CODEX_", "-COPILOT_", "-QWEN_", "-CLINE_", "-GEMINI_", "-DSH_",
		"-CLAUDE_", "-OPENCODE_", "HOME=" + r.Home, "XDG_CONFIG_HOME=" + filepath.Join(r.Home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(r.Home, ".local", "state"), "XDG_DATA_HOME=" + filepath.Join(r.Home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(r.Home, ".cache"), "DSH_HOME=" + r.Home,
		"WATCHDOG_STATE_DIR=" + w.State, "WATCHDOG_CONFIG=" + w.Config}, "\n")
	return hostEnv(os.Environ(), text, filepath.Dir(r.Stdio.Argv[0]))
}

// runWatchdog runs the watchdog's command line (built from this tree) in
// the rig's project folder, as a user would, and returns what it printed.
func runWatchdog(t *testing.T, r *Rig, w *Watchdog, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), cliWithin)
	defer cancel()
	cmd := exec.CommandContext(ctx, watchdogBin(t), args...)
	cmd.Dir, cmd.Env = r.workdir(), stdioEnv(r, w)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// built is the watchdog binary the adopted cells run, built once per test
// run into a folder of its own that TestMain removes (test-only state, as
// report is): adopt's wrapper names the binary that wrote it, and that
// binary's `watchdog stdio` runs the server.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

// watchdogBin builds the watchdog from this tree, once.
func watchdogBin(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		root, err := repo.Root()
		if err != nil {
			built.err = err
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "hosts-watchdog-*"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "watchdog")
		cmd := exec.Command("go", "build", "-o", built.bin, "./cmd/watchdog")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build ./cmd/watchdog: %w\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// removeBuiltWatchdog removes the built watchdog, if one was built.
func removeBuiltWatchdog() {
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
}
