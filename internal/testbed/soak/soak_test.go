package soak

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// roleEnv makes the test binary a soak client process (see RunClient).
const (
	roleEnv         = "SOAK_ROLE"
	clientConfigEnv = "SOAK_CLIENT_CONFIG"
	// notifyReminder is internal/notify's reminder interval, which the
	// daemon's config does not change.
	notifyReminder = time.Hour
)

var (
	soakDuration = flag.Duration("soak.duration", envDuration("SOAK_DURATION", 2*time.Minute), "how long the chaos soak runs (make soak: 30m)")
	soakSeed     = flag.Uint64("soak.seed", envUint("SOAK_SEED", uint64(time.Now().UnixNano())), "the fault schedule's seed (printed, to replay a run)")
	soakReport   = flag.String("soak.report", os.Getenv("SOAK_REPORT"), "file to write the soak's figures to (markdown)")
	soakKeep     = flag.String("soak.keep", os.Getenv("SOAK_KEEP"), "directory to run in and keep (journal, logs, stores) instead of a temporary one")
)

func TestMain(m *testing.M) {
	if os.Getenv(roleEnv) == "client" {
		os.Exit(clientMain())
	}
	os.Exit(m.Run())
}

func clientMain() int {
	var cfg ClientConfig
	if err := json.Unmarshal([]byte(os.Getenv(clientConfigEnv)), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "soak client:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := RunClient(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestSoak is the chaos soak (package doc). Its duration and seed are
// flags; the figures are logged and, with -soak.report, written out.
func TestSoak(t *testing.T) {
	d, seed := *soakDuration, *soakSeed
	t.Logf("chaos soak: %s, seed %d (replay: SOAK_SEED=%d)", d, seed, seed)
	specs := []ServerSpec{
		{Name: "mem-go", Kind: KindGo, Idle: 3 * time.Second, KeepWarm: true},
		{Name: "ts-404", Kind: KindTS404, Idle: 2500 * time.Millisecond, KeepWarm: false},
		{Name: "ts-quirk", Kind: KindTSQuirk, Idle: 2 * time.Second, KeepWarm: true},
	}
	w := newWorld(t, specs)
	w.setup()
	w.startWatchdog()
	stop := make(chan struct{})
	tailDone := make(chan struct{})
	go func() { defer close(tailDone); w.journal.run(stop) }()
	go w.scrape(stop)
	w.start = time.Now()
	w.startHost(seed)
	w.startOther(seed + 1)
	w.startUnpatched(seed + 2)
	w.startPython(seed + 3)
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	plan := Plan(PlanOptions{Seed: seed, Duration: d, Servers: names, Warmup: 8 * time.Second, Cooldown: 12 * time.Second})
	w.runFaults(plan, seed)
	w.lateWG.Wait()
	time.Sleep(time.Until(w.start.Add(d)))
	end := time.Now()
	w.finish(stop, tailDone)
	in := w.input(end)
	if *soakKeep != "" {
		w.keepOutputs(in)
	}
	r := Evaluate(in)
	w.report(r, d, seed)
	for _, p := range r.Problems {
		t.Error(p)
	}
	if r.Proxy.Python == 0 {
		t.Error("the Python SDK client made no call through the proxies")
	}
	if r.LateHosts.StartedDown == 0 {
		t.Error("no host started through a proxy while its server was down (at a server kill): run the soak longer")
	}
	w.checkJournal()
	w.checkSecrets(in)
	w.checkModes()
}

// finish takes the last outputs (status, doctor), crashes the daemon on
// purpose for its crash output, and stops everything.
func (w *world) finish(stop, tailDone chan struct{}) {
	w.hostMu.Lock()
	last := []string{w.run("status", "--json"), w.run("doctor", "--json")}
	w.mu.Lock()
	w.outputs = append(w.outputs, last...)
	w.mu.Unlock()
	w.wdMu.Lock()
	w.crashes = append(w.crashes, w.wd.crashes()...)
	w.stopped = time.Now()
	w.wd.crash()
	w.wdMu.Unlock()
	close(stop)
	<-tailDone
	w.checkBeacons(w.host.cmd.Process.Pid)
	w.host.kill()
	w.hostMu.Unlock()
	w.other.kill()
	w.unpatched.kill()
	w.python.kill()
}

// scrape collects status and metrics every few seconds: outputs that leave
// the process, searched for full session ids at the end.
func (w *world) scrape(stop <-chan struct{}) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		out := w.run("status", "--json")
		if resp, err := http.Get("http://" + w.metrics + "/metrics"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			out += string(b)
		}
		w.mu.Lock()
		w.outputs = append(w.outputs, out)
		w.mu.Unlock()
	}
}

func (w *world) run(args ...string) string {
	cmd := exec.Command(w.bins.watchdog, append(args, "--config", w.cfg, "--state-dir", w.state)...)
	cmd.Env = w.env
	out, _ := cmd.CombinedOutput()
	return string(out)
}

func (w *world) input(end time.Time) Input {
	seen, _ := w.journal.snapshot()
	w.mu.Lock()
	defer w.mu.Unlock()
	servers := map[string]ServerInfo{}
	for _, s := range w.specs {
		servers[s.Name] = ServerInfo{Timeout: s.Idle, KeepWarm: s.KeepWarm}
	}
	for name, p := range w.proxied {
		servers[name] = servers[p.Upstream]
	}
	// Every host run writes its beacon from its start to its kill -9.
	return Input{Servers: servers, HostClient: hostClient, Events: append([]ServerEvent(nil), w.events...),
		ServerDown: w.serverDown, Hosts: append([]Span(nil), w.hostRuns...), WatchdogDown: append([]Span(nil), w.wdDown...), SocketsHeld: true,
		ProxyApart: true, ProxyDown: append([]Span(nil), w.proxyDown...),
		JournalFault: append([]Span(nil), w.jFaults...), Beacons: append([]Span(nil), w.hostRuns...), Reminder: notifyReminder,
		Journal: seen, Notes: w.notes.snapshot(), End: end, Stopped: w.stopped,
		Proxied: w.proxied, Calls: judgedCalls(w.calls, end), Executions: append([]Execution(nil), w.executions...),
		Late: w.lateHosts()}
}

// keepOutputs writes what only the soak saw beside the kept run: the
// daemon's stderr, the notifications and the calls through the proxy.
func (w *world) keepOutputs(in Input) {
	_ = os.WriteFile(filepath.Join(w.dir, "daemon-stderr.log"), []byte(w.stderr.String()), 0o600)
	for name, v := range map[string]any{"notifications.json": in.Notes, "calls.json": in.Calls, "late-hosts.json": in.Late} {
		if b, err := json.MarshalIndent(v, "", " "); err == nil {
			_ = os.WriteFile(filepath.Join(w.dir, name), b, 0o600)
		}
	}
}

// checkJournal: every line parsed after every kill -9 and at the end, and
// the daemon's journal never shrank under the tail.
func (w *world) checkJournal() {
	_, bad := w.journal.snapshot()
	if len(bad) > 0 {
		w.t.Errorf("journal lines that did not parse (or a shrink): %q", bad)
	}
	if err := checkWhole(w.journal.path); err != nil {
		w.t.Errorf("journal at the end: %v", err)
	}
	if len(w.jProblems) > 0 {
		w.t.Errorf("journal after kill -9: %q", w.jProblems)
	}
	for _, bad := range []string{"WARNING: DATA RACE", "panic:", "fatal error:"} {
		if i := strings.Index(w.stderr.String(), bad); i >= 0 {
			w.t.Errorf("the daemon's stderr says %q:\n%s", bad, tail([]byte(w.stderr.String()[i:]), 4000))
		}
	}
	if len(w.crashes) > 0 {
		w.t.Errorf("the daemon exited on its own %d times", len(w.crashes))
	}
}

// checkSecrets greps everything the watchdog printed or sent for any full
// session id the servers handed out.
func (w *world) checkSecrets(in Input) {
	journal, _ := os.ReadFile(w.journal.path)
	outputs := map[string]string{"journal": string(journal), "daemon stderr (crash output included)": w.stderr.String()}
	var notes strings.Builder
	for _, n := range in.Notes {
		notes.WriteString(n.Title + "\n" + n.Body + "\n")
	}
	outputs["notifications"] = notes.String()
	w.mu.Lock()
	outputs["status, metrics and doctor"] = strings.Join(w.outputs, "\n")
	w.mu.Unlock()
	if !strings.Contains(w.stderr.String(), "goroutine ") {
		w.t.Errorf("SIGQUIT left no goroutine dump to search; stderr ends: %q", tail([]byte(w.stderr.String()), 300))
	}
	ids := map[string]bool{}
	for _, ev := range in.Events {
		ids[ev.ID] = true
	}
	for name, text := range outputs {
		for id := range ids {
			if strings.Contains(text, id) {
				w.t.Errorf("a full session id leaked into %s", name)
				break
			}
		}
	}
	w.t.Logf("searched %d outputs for %d session ids", len(outputs), len(ids))
}

// checkModes: state files 0600, state directories 0700, the socket 0600.
func (w *world) checkModes() {
	_ = filepath.WalkDir(w.state, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		mode := info.Mode()
		switch {
		case mode.IsDir() && mode.Perm() != 0o700:
			w.t.Errorf("state directory %s has mode %v, want 0700", p, mode.Perm())
		case !mode.IsDir() && mode.Perm()&0o077 != 0:
			w.t.Errorf("state file %s has mode %v, want no group or other access", p, mode.Perm())
		}
		return nil
	})
}

// checkBeacons: the beacon folder is 0700 and holds the live host's beacon
// (0600) and none of a killed host's: the daemon removes those (the last
// host kill was a cooldown ago).
func (w *world) checkBeacons(live int) {
	dir := filepath.Join(w.home, host.DSH().Client.BeaconDir)
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		w.t.Errorf("beacon folder %s: %v, want mode 0700", dir, err)
		return
	}
	entries, _ := os.ReadDir(dir)
	var left []string
	found := false
	for _, e := range entries {
		name := e.Name()
		if name == strconv.Itoa(live)+".json" {
			found = true
			if fi, err := e.Info(); err != nil || fi.Mode().Perm() != 0o600 {
				w.t.Errorf("the live host's beacon %s: %v, want mode 0600", name, err)
			}
			continue
		}
		if !strings.HasPrefix(name, ".") {
			left = append(left, name)
		}
	}
	if !found {
		w.t.Errorf("the live host (pid %d) has no beacon in %s", live, dir)
	}
	if len(left) > 0 {
		w.t.Errorf("beacons of killed hosts left behind: %v", left)
	}
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return d
	}
	return def
}

func envUint(name string, def uint64) uint64 {
	if n, err := strconv.ParseUint(os.Getenv(name), 10, 64); err == nil {
		return n
	}
	return def
}
