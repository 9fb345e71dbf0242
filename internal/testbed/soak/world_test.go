package soak

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tailbuf"
)

const (
	hostClient      = "dsh-mcp-client"
	unpatchedClient = "unpatched-agent" // calls through the watchdog's proxies
)

// world is everything one soak runs: servers, clients, the watchdog, and
// what was observed of them, in real time.
type world struct {
	t        *testing.T
	dir      string
	root     string
	bins     binaries
	state    string
	stopped  time.Time // the daemon's final stop
	cfg      string
	skewFile string
	jFault   string // the daemon's journal writes fail while this file exists
	home     string
	token    string
	env      []string // the watchdog's
	metrics  string   // host:port
	specs    []ServerSpec
	servers  map[string]*serverProc
	clients  []ClientServer  // the servers as the clients see them
	stderr   *tailbuf.Buffer // every watchdog run's stderr, whole: it is searched for ids
	journal  *journalTail
	notes    *notes
	start    time.Time

	mu         sync.Mutex
	events     []ServerEvent
	serverDown map[string][]Span
	hostRuns   []Span
	wdDown     []Span
	proxyDown  []Span   // kills of the proxy process, to its serving again
	jFaults    []Span   // journal write failures, from the fault file's creation to its removal
	outputs    []string // status, metrics and doctor outputs, for the id sweep
	jChecks    int
	jProblems  []string
	midIncid   int
	crashes    []time.Time // the daemon found dead before the soak killed it
	faults     map[FaultKind]int
	faultErrs  []string

	hostMu sync.Mutex
	host   *clientProc
	other  *clientProc
	// unpatched calls every server through the watchdog's proxies, listed
	// by their config entries' names.
	unpatched  *clientProc
	python     *clientProc // the Python SDK client, through the proxies too
	proxied    map[string]ProxiedServer
	proxyAddrs map[string]string // soak server → its proxy's listen address
	calls      []CallRecord
	executions []Execution

	// late are the hosts started through a proxy while its server was
	// down (latehost_test.go), once each is done; lateWG waits for them.
	lateMu sync.Mutex
	late   []LateHost
	lateN  int
	lateWG sync.WaitGroup

	wdMu  sync.Mutex
	wd    *supervisedDaemon
	srvMu map[string]*sync.Mutex
	jfMu  sync.Mutex // one journal failure at a time
}

type binaries struct{ watchdog, demoserver string }

func newWorld(t *testing.T, specs []ServerSpec) *world {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if *soakKeep != "" {
		dir = *soakKeep
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	w := &world{t: t, dir: dir, root: root, specs: specs, servers: map[string]*serverProc{},
		state: filepath.Join(dir, "state"), skewFile: filepath.Join(dir, "clock-skew"), home: filepath.Join(dir, "home"),
		jFault: filepath.Join(dir, "journal-fault"),
		token:  fmt.Sprintf("soakhost-%d", os.Getpid()), stderr: &tailbuf.Buffer{Max: 1 << 30},
		serverDown: map[string][]Span{}, faults: map[FaultKind]int{}, srvMu: map[string]*sync.Mutex{},
		proxied: map[string]ProxiedServer{}, proxyAddrs: map[string]string{}}
	w.journal = &journalTail{path: filepath.Join(w.state, "events.jsonl")}
	w.bins = buildBinaries(t, root, dir)
	return w
}

// buildBinaries builds the watchdog (with the race detector when the test
// has it, so the soak also hunts data races in the daemon) and the Go SDK
// server. The watchdog is the shipped one plus its drills (the debug tag:
// a journal write fault, a skew of its wall clock), which change nothing
// else: its loop sleeps as the shipped daemon's does.
func buildBinaries(t *testing.T, root, dir string) binaries {
	b := binaries{watchdog: filepath.Join(dir, "bin", "watchdog"), demoserver: filepath.Join(dir, "bin", "demoserver")}
	build := func(out, pkg string, watchdog bool) {
		args := []string{"build", "-o", out}
		if watchdog {
			args = append(args, "-tags", "watchdogdebug")
		}
		if watchdog && raceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, pkg)...)
		cmd.Dir = root
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, msg)
		}
	}
	build(b.watchdog, "./cmd/watchdog", true)
	build(b.demoserver, "./internal/demoserver/cmd/demoserver", false)
	return b
}

// setup starts the bus, the servers, the patched client module and writes
// the watchdog's config.
func (w *world) setup() {
	t := w.t
	for _, d := range []string{w.home, filepath.Join(w.dir, "logs"), filepath.Join(w.dir, "stores")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	bus := w.startBus()
	for _, spec := range w.specs {
		s := &serverProc{spec: spec, log: filepath.Join(w.dir, "logs", spec.Name+".log"),
			store: filepath.Join(w.dir, "stores", spec.Name, "mcp-sessions.json"), onEvent: w.serverEvent, onCall: w.serverCall}
		if err := os.MkdirAll(filepath.Dir(s.store), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := s.start(w.bins.demoserver); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.kill)
		w.servers[spec.Name] = s
		w.srvMu[spec.Name] = &sync.Mutex{}
	}
	w.clients = w.clientServers()
	module := w.patchedModule()
	w.metrics = freeAddr(t)
	w.cfg = filepath.Join(w.dir, "watchdog.toml")
	if err := os.WriteFile(w.cfg, []byte(w.config(module)), 0o600); err != nil {
		t.Fatal(err)
	}
	w.env = append(os.Environ(), "HOME="+w.home, "DBUS_SESSION_BUS_ADDRESS="+bus,
		"XDG_CONFIG_HOME="+filepath.Join(w.dir, "xdg-config"), "XDG_STATE_HOME="+filepath.Join(w.dir, "xdg-state"),
		"WATCHDOG_CONFIG=", "WATCHDOG_STATE_DIR=", "WATCHDOG_DEBUG_CLOCK_SKEW_FILE="+w.skewFile,
		"WATCHDOG_DEBUG_JOURNAL_FAULT_FILE="+w.jFault,
		"GORACE=atexit_sleep_ms=0")
}

func (w *world) config(module string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "notify = true\nmetrics_listen = %q\n[host]\nname = \"DSH\"\nclient_name = %q\nprocess = %q\nclient_module = %q\nrestart = []\n",
		w.metrics, hostClient, w.token, module)
	for _, spec := range w.specs {
		s := w.servers[spec.Name]
		fmt.Fprintf(&b, "[[server]]\nname = %q\nurl = %q\nlogs = [%q]\nstore = %q\nidle_timeout = %q\nkeep_warm = %v\n",
			spec.Name, s.url, s.log, s.store, spec.Idle.String(), spec.KeepWarm)
	}
	// The same servers again, each behind a proxy: entries of their own, so
	// the direct entries judge the host's sessions as before.
	for _, spec := range w.specs {
		name := spec.Name + "-proxy"
		w.proxied[name] = ProxiedServer{Upstream: spec.Name, Client: unpatchedClient}
		w.proxyAddrs[spec.Name] = freeAddr(w.t)
		fmt.Fprintf(&b, "[[server]]\nname = %q\nurl = %q\nidle_timeout = %q\nkeep_warm = %v\nproxy_listen = %q\n",
			name, w.servers[spec.Name].url, spec.Idle.String(), spec.KeepWarm, w.proxyAddrs[spec.Name])
	}
	return b.String()
}

// startBus runs a private session bus whose notification service is the
// soak's listener, so the daemon's real notifications path is exercised.
func (w *world) startBus() string {
	t := w.t
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("dbus-daemon (apt-get install dbus; .ci/run does): %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	addr = strings.TrimSpace(addr)
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if w.notes, err = listenNotes(conn); err != nil {
		t.Fatal(err)
	}
	return addr
}

// patchedModule lays out the stand-in dsh-mcp-client and patches it, so
// the daemon heals by triggering the client's recovery (the soak's host
// client honours the triggers the way the patched client does).
func (w *world) patchedModule() string {
	t := w.t
	dir := filepath.Join(w.dir, "client")
	src := filepath.Join(w.root, "testdata", "dshclient")
	for _, f := range []string{"package.json", filepath.Join("lib", "index.js")} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(src, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	module := filepath.Join(dir, "lib", "index.js")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node (make deps): %v", err)
	}
	if _, err := clientpatch.Install(module, clientpatch.InstallOptions{Home: w.home, Node: node}); err != nil {
		t.Fatalf("patch the stand-in client: %v", err)
	}
	return module
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func (w *world) serverEvent(ev ServerEvent) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, ev)
}

func (w *world) serverCall(e Execution) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.executions = append(w.executions, e)
}

// clientServers is read once, at setup: a restarted server keeps its URL,
// and its serverProc is rewritten while the clients restart.
func (w *world) clientServers() []ClientServer {
	var out []ClientServer
	for _, spec := range w.specs {
		out = append(out, ClientServer{Name: spec.Name, URL: w.servers[spec.Name].url, MaxGap: spec.Idle * 8 / 5})
	}
	return out
}

// startHost starts a host process: one session per server, honouring the
// watchdog's recovery triggers and writing a beacon like the patched
// client, under the home the daemon runs with.
func (w *world) startHost(seed uint64) {
	profile := host.DSH().Client
	c, err := startClient(w.token, ClientConfig{Name: hostClient, Servers: w.clients, Seed: seed,
		TriggerDir: filepath.Join(w.home, profile.TriggerDir), BeaconDir: filepath.Join(w.home, profile.BeaconDir)}, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	w.host = c
	w.mu.Lock()
	w.hostRuns = append(w.hostRuns, Span{From: time.Now()})
	w.mu.Unlock()
}

// startOther starts another agent with sessions on two servers: the
// watchdog must track them without taking them for the host's. It writes
// no beacon: what the watchdog knows of it is inferred.
func (w *world) startOther(seed uint64) {
	servers := w.clients[:2]
	c, err := startClient(strings.Replace(w.token, "soakhost", "soakother", 1), ClientConfig{Name: "other-agent", Servers: servers, Seed: seed}, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	w.other = c
	w.t.Cleanup(c.kill)
}

// startUnpatched starts a client that never re-initializes, calling every
// server through its proxy; its calls are read from its stdout.
func (w *world) startUnpatched(seed uint64) {
	var servers []ClientServer
	secret, err := proxy.LoadSecret(w.state) // the daemon's, kept in its state
	if err != nil {
		w.t.Fatal(err)
	}
	for _, cs := range w.clients {
		cs.URL = proxy.URLFor(w.proxyAddrs[cs.Name], secret)
		servers = append(servers, cs)
	}
	out := &lineWriter{line: w.callLine}
	c, err := startClient(strings.Replace(w.token, "soakhost", "soakunpatched", 1),
		ClientConfig{Name: unpatchedClient, Servers: servers, Seed: seed, Unpatched: true}, out)
	if err != nil {
		w.t.Fatal(err)
	}
	w.unpatched = c
	w.t.Cleanup(c.kill)
}

func (w *world) callLine(line []byte) {
	var rec CallRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		w.t.Errorf("the unpatched client wrote %q: %v", line, err)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, rec)
}

// startWatchdog starts the daemon under its supervisor, which holds every
// proxy's socket and the control socket from now to the soak's end.
func (w *world) startWatchdog() {
	var proxies []string
	for _, spec := range w.specs {
		proxies = append(proxies, w.proxyAddrs[spec.Name])
	}
	d, err := startSupervised(w.bins.watchdog, w.env, w.cfg, w.state, proxies, w.stderr)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(d.stop) // a soak that failed half way
	w.wd = d
}
