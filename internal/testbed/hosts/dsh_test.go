package hosts

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/monitor/classify"
)

// idle is the server's idle timeout in the rows: short, so a row waits
// seconds for the loss (the server's own end event, not a sleep), yet
// long enough for a host started under load to make its first call on
// the session it opened at its start.
const idle = 4 * time.Second

// dshClient is the clientInfo.name DSH's MCP client sends.
var dshClient = host.DSH().ClientName

// A loss the server inflicts on the host's session.
type loss struct {
	name   string
	idle   time.Duration     // the server's idle timeout (0: never)
	reason demoserver.Reason // how the server ends the session
	cause  func(*Rig)        // what the test does to cause it; nil: wait
}

var losses = []loss{
	{name: "idle expiry", idle: idle, reason: demoserver.ReasonIdleTimeout},
	{name: "server restart", reason: demoserver.ReasonShutdown, cause: func(r *Rig) { r.Server.restart() }},
}

// setup is how the host reaches the server in a cell of the table.
type setup struct {
	name           string
	patched, proxy bool
	// adopt: the host's own CLI registers the server, and `watchdog hosts
	// adopt` routes it through the watchdog's proxy (a watchdog watching
	// DSH alone: adopt makes it watch the host too).
	adopt bool
	// stuckOn says on which servers the cell must measure STUCK (every
	// call after the loss fails and none runs); on the others every call
	// must work and run once. nil: never stuck. expect, when set, says
	// instead what every server's calls after the loss do.
	stuckOn func(ServerKind) bool
	expect  func(ServerKind) outcome
}

func always(ServerKind) bool { return true }

// outcome is what a host's three calls after a loss do.
type outcome int

const (
	worked     outcome = iota // every call works and runs once
	stuck                     // every call fails, none runs
	failsFirst                // the first call fails (and ran nothing), the others work, once each
	hangs                     // the first call gets no answer, nor runs: the host waits until killed
)

// outcome is what su's cell must measure on a server of kind k.
func (su setup) outcome(k ServerKind) outcome {
	switch {
	case su.expect != nil:
		return su.expect(k)
	case su.stuckOn != nil && su.stuckOn(k):
		return stuck
	}
	return worked
}

// hostRow is one host of the table: how the rig starts it, and its setups.
type hostRow struct {
	name, version, client string
	start                 func(t *testing.T, r *Rig, url string, patched bool)
	// prepare registers the server at url with the host's own CLI (for an
	// adopt setup, before adopt); start then runs on what it registered
	// (url ""). nil: the row has no adopt setup.
	prepare func(t *testing.T, r *Rig, url string)
	setups  []setup
	// fast are the cells `make test` measures of the row (on the Go SDK
	// server): nil, every loss and setup.
	fast func(l loss, su setup) bool
	// lostWords: a failed call's text reads as a lost session to the
	// watchdog's classifier (the seed's error, which the watchdog also
	// reads in logs).
	lostWords bool
}

func dshRow(t *testing.T) hostRow {
	in := MustDSH(t)
	return hostRow{name: in.Name, version: in.Version, client: host.DSH().ClientName,
		start: func(t *testing.T, r *Rig, url string, patched bool) {
			if patched {
				r.StartDSH(r.PatchDSH(MustDSH(t), true), url) // as `npm install -g` nests it
				return
			}
			r.StartDSH(MustDSH(t), url)
		},
		setups:    []setup{{name: "unpatched", stuckOn: always}, {name: "patched", patched: true}, {name: "proxied", proxy: true}},
		lostWords: true}
}

// The real DSH host's row of the host table, each server (the Go SDK's
// only, unless -hosts.matrix) × each loss × each setup:
// straight to the server unpatched the call after the loss fails with the
// seed's error and so does every later one, none run, no new session
// (STUCK); with the client patch applied to the module in a global layout,
// or through the watchdog's proxy, every call after the loss works and
// runs once.
func TestDSHRow(t *testing.T) {
	t.Parallel()
	measureRow(t, dshRow(t))
}

// measureRow measures each cell of h's row, in parallel, into the table.
func measureRow(t *testing.T, h hostRow) {
	report.host(h.name + " " + h.version)
	order := 0
	for _, kind := range serverKinds() {
		for _, l := range losses {
			for _, su := range h.setups {
				if !*matrix && h.fast != nil && !h.fast(l, su) {
					continue
				}
				order++
				cell := row{host: h.name, server: string(kind), loss: l.name, setup: su.name, order: order}
				t.Run(string(kind)+"/"+l.name+"/"+su.name, func(t *testing.T) {
					t.Parallel()
					report.add(measureCell(t, h, kind, l, su, cell))
				})
			}
		}
	}
}

// measureCell measures one cell of h's row and checks it against su.
func measureCell(t *testing.T, h hostRow, kind ServerKind, l loss, su setup, got row) row {
	r := NewRig(t, kind, l.idle)
	w := startCellHost(t, r, h, l, su)
	callOK(t, r, "before")
	if l.cause != nil {
		l.cause(r)
	}
	r.WaitEnd(h.client, l.reason)
	want := su.outcome(kind)
	got = threeCalls(t, r, h, want, got)
	if !su.proxy && !su.adopt {
		checkWords(t, r, w, h, want) // while the host still holds its session
	}
	if want == hangs {
		r.Host.Stop()
	} else {
		r.Finish()
	}
	t.Logf("verdict: %s %s, %s server, %s, %s: %s (%d of %d calls after the loss failed)",
		h.name, h.version, kind, l.name, su.name, got.verdict(), got.failed, got.calls)
	if n := r.Started(h.client); (want == stuck || want == hangs) && n != 1 {
		t.Errorf("the host opened %d sessions; a stuck host opens none after its first", n)
	}
	if su.proxy || su.adopt {
		checkProxied(t, w, h, su)
	}
	return got
}

// checkProxied: through the proxy, every loss is the proxy's word and
// ends in a recovered, under the host whose call met it (adopt made the
// watchdog watch it).
func checkProxied(t *testing.T, w *Watchdog, h hostRow, su setup) {
	t.Helper()
	rec := daemontest.WaitEvent(t, w.State, "recovered", 1, 10*time.Second)
	if rec.Str("source") != "proxy" || su.adopt && rec.Str("host") != h.name {
		t.Errorf("recovered = %v; want source proxy, the host %q", rec, h.name)
	}
	var lost []daemontest.JournalLine
	for _, ev := range daemontest.Journal(t, w.State, "session_lost") {
		if ev["incident"] == true { // a host's loss (another client's session ending is no incident)
			lost = append(lost, ev)
		}
	}
	for _, ev := range lost {
		if ev.Str("source") != "proxy" || su.adopt && ev.Str("host") != h.name {
			t.Errorf("session_lost = %v; through the proxy, want only the proxy's word, under %q", ev, h.name)
		}
	}
	if n := len(daemontest.Journal(t, w.State, "recovered")); n < len(lost) {
		t.Errorf("%d losses, %d recovered: every loss the proxy heals ends in recovered", len(lost), n)
	}
}

// startCellHost starts the watchdog and the host as su says, and returns
// the watchdog.
func startCellHost(t *testing.T, r *Rig, h hostRow, l loss, su setup) *Watchdog {
	t.Helper()
	idle := cmp.Or(l.idle, time.Hour)
	switch {
	case su.adopt:
		// A watchdog watching DSH alone, as a config that names no host.
		w := r.StartWatchdog("demo", idle, false, watchedHost(host.DSH().Name, ""))
		h.prepare(t, r, r.Server.url)
		adopting.Lock() // adopt picks a port that is free now: one cell at a time, until its watchdog listens
		r.Adopt(w, profileOf(t, h.name))
		adopting.Unlock()
		h.start(t, r, "", false)
		return w
	case su.proxy:
		w := r.StartWatchdog("demo", idle, true, watchedHost(h.name, ""))
		h.start(t, r, w.ProxyURL(t), su.patched)
		return w
	}
	if h.prepare != nil {
		h.prepare(t, r, r.Server.url)
		h.start(t, r, "", su.patched)
	} else {
		h.start(t, r, r.Server.url, su.patched)
	}
	// Watching a host it does not proxy, the watchdog knows the loss
	// from the server's store and log, and says what the host will do.
	return r.StartWatchdog("demo", idle, false, watchedHost(h.name, r.Module))
}

// adopting serializes the cells' adopts (test-only state, as report is):
// each picks a proxy port from the server's name, free at that moment,
// and the cells' servers share a name.
var adopting sync.Mutex

func profileOf(t *testing.T, name string) host.Profile {
	t.Helper()
	p, ok := host.Lookup(name)
	if !ok {
		t.Fatalf("no profile %q", name)
	}
	return p
}

// threeCalls makes the three calls after the loss and counts into got
// what became of them. A host that hangs on the first is not asked more.
func threeCalls(t *testing.T, r *Rig, h hostRow, want outcome, got row) row {
	t.Helper()
	for i := 1; i <= 3; i++ {
		text := fmt.Sprintf("after-%d", i)
		if want == hangs {
			got.calls, got.failed, got.hung = 3, 3, true
			callHangs(t, r, text)
			return got
		}
		callWant := want
		if want == failsFirst {
			callWant = worked
			if i == 1 {
				callWant = stuck
			}
		}
		res, ok := callAfter(t, r, text, callWant == stuck, h.lostWords)
		got.calls++
		if !ok {
			got.failed++
			got.seen = cmp.Or(got.seen, res.Content)
		}
		if r.Ran(text) > 1 {
			got.ranTwice++
		}
	}
	return got
}

// hangWithin is how long a call of a host that hangs is waited for: the
// hosts measured to hang wait minutes (their tool timeout), or forever.
const hangWithin = 20 * time.Second

// callHangs makes a call that must get no answer within hangWithin, and
// never run on the server.
func callHangs(t *testing.T, r *Rig, text string) {
	t.Helper()
	if res, _, answered := r.CallWithin(text, hangWithin); answered {
		t.Errorf("call %q after the loss was answered (%q): the host does not hang", text, res.Content)
	}
	if n := r.Ran(text); n != 0 {
		t.Errorf("the server ran call %q %d times, want 0", text, n)
	}
}

// watchedHost is the [host] table's keys for the host named name: its
// process not watched (another cell's host may run the same program),
// its patched client module when module is not "".
func watchedHost(name, module string) string {
	keys := fmt.Sprintf("name = %q\nprocess = \"\"\nport = 0", name)
	if module != "" {
		keys += fmt.Sprintf("\nclient_module = %q", module)
	}
	return keys
}

// lossWords is what the watchdog's loss line says of a stuck host's next
// call on a server of kind k: as its profile reacts to that server's
// answer (Codex CLI, say, hangs on the 400 until its tool timeout: its
// calls fail, slowly).
func lossWords(t *testing.T, h hostRow, k ServerKind) string {
	if profileOf(t, h.name).Behaviour.On(answerOf(k)) == host.Hangs {
		return "its next call will hang"
	}
	return "its next call will fail"
}

// answerOf is how a server of kind k answers a lost session.
func answerOf(k ServerKind) host.Answer {
	switch k {
	case GoSDK:
		return host.NotFoundText // http.Error's text
	case TSSDK:
		return host.NotFoundRPC // -32001
	}
	return host.BadRequest
}

// checkWords checks that the watchdog told the truth of a loss the host
// met straight from the server. A stuck host: the loss names the host and
// says its next call fails, and nothing says it recovered. A host that
// healed itself: once the watchdog has seen its newest session,
// every loss it reported of the host's says the host re-initializes, and
// each was followed by a recovery (a client that moved on before any call
// met the loss may have had none reported).
func checkWords(t *testing.T, r *Rig, w *Watchdog, h hostRow, want outcome) {
	t.Helper()
	if want == stuck || want == hangs {
		says := lossWords(t, h, r.Kind)
		lost := daemontest.WaitEvent(t, w.State, "session_lost", 1, lossWithin)
		if lost.Str("host") != h.name || lost.Str("on_loss") != "stuck" || !strings.Contains(lost.Str("detail"), says) {
			t.Errorf("session_lost = %v; want host %q, on_loss stuck, and the words %q", lost, h.name, says)
		}
		if rec := daemontest.Journal(t, w.State, "recovered"); len(rec) > 0 {
			t.Errorf("the watchdog says the stuck host recovered: %v", rec)
		}
		checkAdvice(t, w, h)
		return
	}
	ids := r.SessionsOf(h.client)
	newest := mask.ID(ids[len(ids)-1])
	daemontest.WaitFor(t, lossWithin, "the watchdog to see the host's newest session "+newest, func() bool {
		return slices.ContainsFunc(daemontest.Journal(t, w.State, "session_new"), func(e daemontest.JournalLine) bool { return e.Str("session") == newest })
	})
	var lost int
	for _, ev := range daemontest.Journal(t, w.State, "session_lost") {
		if ev.Str("host") == "" {
			continue // another client's session, as the watchdog judged it
		}
		lost++
		says := "re-initializes on its next call"
		if want == failsFirst {
			says = "re-initializes, but its next call fails first"
		}
		if ev.Str("host") != h.name || ev.Str("on_loss") != "self-healing" || !strings.Contains(ev.Str("detail"), says) {
			t.Errorf("session_lost = %v; want host %q, on_loss self-healing, and the words %q", ev, h.name, says)
		}
	}
	if lost > 0 {
		daemontest.WaitEvent(t, w.State, "recovered", lost, lossWithin)
	}
}

// checkAdvice: the watchdog's advice for a stuck host is its own: DSH's
// names the patch, every other host's `watchdog hosts adopt`, and a host
// run per prompt is never told to restart (its next run is a new one).
func checkAdvice(t *testing.T, w *Watchdog, h hostRow) {
	t.Helper()
	failed := daemontest.WaitEvent(t, w.State, "heal_failed", 1, lossWithin)
	d, p := failed.Str("detail"), profileOf(t, h.name)
	switch {
	case p.Patchable() && !strings.Contains(d, "watchdog patch apply"):
		t.Errorf("heal_failed %q; want the patch advice", d)
	case !strings.Contains(d, p.AdoptCommand()):
		t.Errorf("heal_failed %q; want %q", d, p.AdoptCommand())
	case p.OneShot && (strings.Contains(d, "restart") || !strings.Contains(d, "next run")):
		t.Errorf("heal_failed %q; a host run per prompt has nothing to restart: want its next run named", d)
	}
}

// callOK makes a call that must work and run once on the server.
func callOK(t *testing.T, r *Rig, text string) {
	t.Helper()
	_, _ = callAfter(t, r, text, false, false)
}

// callAfter makes a call that must work and run once on the server, or,
// when stuck, fail as a lost session (the error the watchdog's classifier
// reads so) and never reach the tool. It returns what the host handed back
// and whether the call worked. lostWords: a failure must read as a lost
// session.
func callAfter(t *testing.T, r *Rig, text string, stuck, lostWords bool) (ToolResult, bool) {
	t.Helper()
	res, ok := r.Call(text)
	want := 1
	switch {
	case stuck && ok:
		t.Errorf("call %q after the loss worked: the real DSH is not stuck", text)
	case stuck:
		want = 0
		if !lostWords {
			break
		}
		if m, hit := classify.LogLine([]byte(res.Content)); !hit || m.Kind != classify.SessionLost {
			t.Errorf("call %q after the loss failed with %q; the watchdog does not read it as a lost session (%v, %v)", text, res.Content, m, hit)
		}
	case !ok:
		t.Errorf("call %q: the host handed back %q, want the echo", text, res.Content)
	}
	if n := r.Ran(text); n != want {
		t.Errorf("the server ran call %q %d times, want %d", text, n, want)
	}
	return res, ok
}

// startWatchedPatchedDSH starts the real DSH host, patched, on a Go SDK
// server whose sessions idle out, with the watchdog watching its process
// and client module, and makes one call that must work.
func startWatchedPatchedDSH(t *testing.T) (*Rig, *Watchdog) {
	t.Helper()
	r := NewRig(t, GoSDK, idle)
	priv := r.PatchDSH(MustDSH(t), false)
	w := r.StartWatchdog("demo", idle, false,
		fmt.Sprintf("process = %q\nport = 0\nclient_module = %q", filepath.Base(priv.Command), priv.Module))
	r.StartDSH(priv, r.Server.url)
	callOK(t, r, "before")
	return r, w
}

// The watchdog against the real DSH host, patched: it finds the host's
// process (node running the global install's dsh), reads the beacon the
// real patched client writes (source beacon, the client's own session),
// and on the idle expiry triggers the client's recovery: the client opens
// a new session before any call, and the next call runs on it.
func TestDSHWatchdogHealsTheRealHost(t *testing.T) {
	t.Parallel()
	r, w := startWatchedPatchedDSH(t)
	first := r.SessionsOf(dshClient)[0]
	up := daemontest.WaitEvent(t, w.State, "host_up", 1, 20*time.Second)
	if pid, _ := up["pid"].(float64); int(pid) != r.Host.Pid() {
		t.Errorf("host_up = %v; want the real host's pid %d", up, r.Host.Pid())
	}
	lost := daemontest.WaitEvent(t, w.State, "session_lost", 1, lossWithin)
	if lost.Str("source") != "beacon" || lost.Str("session") != mask.ID(first) {
		t.Errorf("session_lost = %v; want source beacon and the client's session %s", lost, mask.ID(first))
	}
	rec := daemontest.WaitEvent(t, w.State, "recovered", 1, lossWithin)
	if rec.Str("strategy") != "client_recovery" || rec.Str("source") != "beacon" {
		t.Errorf("recovered = %v; want strategy client_recovery, source beacon", rec)
	}
	if got := r.SessionsOf(dshClient); len(got) < 2 || rec.Str("new_session") != mask.ID(got[1]) {
		t.Errorf("recovered names new session %s; the server started %v for the host", rec.Str("new_session"), got)
	}
	callOK(t, r, "after")
	r.Finish()
}

// Calls the real patched DSH makes while the watchdog's recovery is under
// way: the trigger has taken the lost session's generation down and the
// client waits out its reconnect backoff, yet the tools it registered on
// that generation are still the model's. Each call must wait for the new
// session and run there once; sent on the closed generation it fails "Not
// connected" (patch v3 did so, the server never saw it).
func TestDSHPatchedCallsDuringTheWatchdogsRecovery(t *testing.T) {
	t.Parallel()
	r, w := startWatchedPatchedDSH(t)
	r.WaitEnd(dshClient, demoserver.ReasonIdleTimeout)
	// heal_started is journaled once the trigger is written: from here on
	// the client is retiring the generation, or has.
	heal := daemontest.WaitEvent(t, w.State, "heal_started", 1, lossWithin)
	if heal.Str("strategy") != "client_recovery" {
		t.Fatalf("heal_started = %v; want strategy client_recovery", heal)
	}
	for i := 1; i <= 3; i++ {
		callOK(t, r, fmt.Sprintf("during-%d", i))
	}
	r.Finish()
}
