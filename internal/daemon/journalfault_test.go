//go:build watchdogdebug

package daemon_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// faultRig is a daemon config whose host log the test writes, and the
// file whose existence makes the daemon's journal writes fail.
type faultRig struct {
	cfg, state, hostLog, store, fault string
}

const (
	faultLossLine      = "ERROR [mcp mem] Streamable HTTP error: Error POSTing to endpoint: Session not found"
	faultReconnectLine = "INFO [mcp mem] Reconnected to MCP server"
)

func newFaultRig(t *testing.T) faultRig {
	t.Helper()
	dir := t.TempDir()
	r := faultRig{state: filepath.Join(dir, "state"), hostLog: filepath.Join(dir, "host.log"),
		fault: filepath.Join(dir, "journal-fault")}
	store := filepath.Join(dir, "mcp-sessions.json")
	r.store = store
	body := fmt.Sprintf(`{"sessions":[{"id":"0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b","client_name":%q,"last_activity":%q}]}`,
		daemontest.HostClient(), time.Now().UTC().Format(time.RFC3339Nano))
	if err := os.WriteFile(store, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	daemontest.AppendLine(t, r.hostLog, "INFO host web listening on :3080")
	// A server that answers, so that its state is the model's judgement of
	// the session rather than "down".
	srv, err := demoserver.Start(context.Background(), demoserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	r.cfg = daemontest.WriteConfig(t, dir, fmt.Sprintf(`
[host]
logs = [%q]
process = ""
port = 0
[[server]]
name = "mem"
url = %q
store = %q
`, r.hostLog, srv.URL(), store))
	return r
}

// startProc starts the daemon binary with its journal fault file set.
func (r faultRig) startProc(t *testing.T) *daemontest.Proc {
	t.Helper()
	cmd := daemonCmdHome(t, "--config", r.cfg, "--state-dir", r.state)
	cmd.Env = append(cmd.Env, daemon.JournalFaultEnv+"="+r.fault)
	return daemontest.Start(t, cmd, r.state)
}

// writeStore rewrites the server's store with sessions of another client.
func (r faultRig) writeStore(t *testing.T, ids ...string) {
	t.Helper()
	list := []string{}
	for _, id := range ids {
		list = append(list, fmt.Sprintf(`{"id":%q,"client_name":"other","last_activity":%q}`, id, time.Now().UTC().Format(time.RFC3339Nano)))
	}
	if err := os.WriteFile(r.store, []byte(`{"sessions":[`+strings.Join(list, ",")+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
}

// faultOn waits until the daemon has acknowledged the whole host log (so
// a restart resumes after it, and what follows is live), then makes every
// journal write fail.
func (r faultRig) faultOn(t *testing.T) {
	t.Helper()
	size := daemontest.Size(t, r.hostLog)
	daemontest.WaitFor(t, 10*time.Second, "the host log acknowledged", func() bool {
		return daemontest.Acked(t, r.state, r.hostLog) == size
	})
	if err := os.WriteFile(r.fault, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

func (r faultRig) faultOff(t *testing.T) {
	t.Helper()
	if err := os.Remove(r.fault); err != nil {
		t.Fatal(err)
	}
}

// afterAll is the barrier for "nothing more came": a reconnect line
// appended to the host log after everything the test wrote there, and its
// n-th `recovered`. The follower reads a file in order and the loop
// journals in order, so a second take of an earlier line would be in the
// journal before it.
func (r faultRig) afterAll(t *testing.T, n int) {
	t.Helper()
	daemontest.AppendLine(t, r.hostLog, faultReconnectLine)
	daemontest.WaitEvent(t, r.state, "recovered", n, 15*time.Second)
}

// appendLoss writes the loss line and returns where it ends.
func (r faultRig) appendLoss(t *testing.T) int64 {
	t.Helper()
	daemontest.AppendLine(t, r.hostLog, faultLossLine)
	return daemontest.Size(t, r.hostLog)
}

// unjournaledLoss: the daemon has seen the loss (its status says lost),
// yet the journal does not have it. No wait past the status: it is
// answered by the loop after it applied the line, and a journal write
// that fails, fails there and then. That its log position stayed
// unacknowledged is shown where it counts: a restart reads the line again
// (TestUnjournaledLossIsReplayedAfterARestart), and the held acks come
// only after the journal (TestJournalWriteFailureHoldsEverything).
func (r faultRig) unjournaledLoss(t *testing.T) {
	t.Helper()
	daemontest.WaitFor(t, 10*time.Second, "the status to say lost", func() bool {
		state, _ := daemontest.ServerState(status(t, r.state), "mem")
		return state == "lost"
	})
	if evs := daemontest.Journal(t, r.state, "session_lost"); len(evs) != 0 {
		t.Fatalf("session_lost journaled while every write fails: %v", evs)
	}
}

// storeBarrier adds a session of another client to the store beside the
// host's and waits until the status shows it: the loop took in an item
// that came after whatever the test wrote before (store changes keep
// coming in while the journal holds events).
func (r faultRig) storeBarrier(t *testing.T) {
	t.Helper()
	body := fmt.Sprintf(`{"sessions":[{"id":"0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b","client_name":%q,"last_activity":%q},`+
		`{"id":"barrier-0123456789abcdef","client_name":"other","last_activity":%q}]}`,
		daemontest.HostClient(), time.Now().UTC().Format(time.RFC3339Nano), time.Now().UTC().Format(time.RFC3339Nano))
	if err := os.WriteFile(r.store, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	daemontest.WaitFor(t, 10*time.Second, "the status to show the barrier session", func() bool {
		_, sessions := daemontest.ServerState(status(t, r.state), "mem")
		return len(sessions) == 2
	})
}

func kinds(evs []daemontest.JournalLine) []string {
	out := make([]string, 0, len(evs))
	for _, ev := range evs {
		out = append(out, ev.Str("kind"))
	}
	return out
}

// TestJournalWriteFailureHoldsEverything: while the journal cannot be
// written the daemon still sees (status), but neither journals nor
// acknowledges nor reads further; once it can write again, the held loss
// is journaled, then a warning about the outage, then what came after,
// each once and in order, and only then are the positions acknowledged.
func TestJournalWriteFailureHoldsEverything(t *testing.T) {
	t.Parallel()
	r := newFaultRig(t)
	d := startDaemonOpts(t, r.cfg, r.state, faultOpts(r.fault, daemon.Options{}))
	r.faultOn(t)
	before := len(daemontest.Journal(t, r.state))
	lossEnd := r.appendLoss(t)
	r.unjournaledLoss(t)
	// The reconnect line waits behind the loss: taken in, it would heal
	// (and its recovered would be journaled before the outage's warning).
	daemontest.AppendLine(t, r.hostLog, faultReconnectLine)
	end := daemontest.Size(t, r.hostLog)
	r.storeBarrier(t)
	if state, _ := daemontest.ServerState(status(t, r.state), "mem"); state != "lost" {
		t.Fatalf("status %q: a line after the unjournaled loss was taken in", state)
	}
	if acked := daemontest.Acked(t, r.state, r.hostLog); acked >= lossEnd {
		t.Fatalf("the loss line (ending at %d) was acknowledged (%d) but never journaled", lossEnd, acked)
	}
	r.faultOff(t)
	rec := daemontest.WaitEvent(t, r.state, "recovered", 1, 15*time.Second)
	evs := daemontest.Journal(t, r.state)[before:]
	lost, warn, recovered := -1, -1, -1
	for i, ev := range evs {
		switch {
		case ev.Str("kind") == "session_lost" && lost < 0:
			lost = i
		case ev.Str("kind") == "warning" && strings.Contains(ev.Str("detail"), "could not be written") && warn < 0:
			warn = i
		case ev.Str("kind") == "recovered" && recovered < 0:
			recovered = i
		case ev.Str("kind") == "session_lost", ev.Str("kind") == "recovered":
			t.Fatalf("%s journaled twice: %v", ev.Str("kind"), kinds(evs))
		}
	}
	if lost < 0 || warn < 0 || !(lost < warn && warn < recovered) {
		t.Fatalf("journal after the fault: %v, want session_lost, then the outage warning, then recovered", kinds(evs))
	}
	w := evs[warn]
	if held, _ := w["held_events"].(float64); held < 1 || !strings.Contains(w.Str("detail"), "injected") {
		t.Fatalf("the outage warning does not say why and how much it held: %v", w)
	}
	if got := daemontest.Journal(t, r.state, "session_lost")[0]["log_offset"]; got != float64(lossEnd) {
		t.Fatalf("session_lost at log_offset %v, want %d", got, lossEnd)
	}
	if rec.Time(t).Before(w.Time(t)) {
		t.Fatalf("recovered at %s, before the warning at %s", rec.Str("time"), w.Str("time"))
	}
	daemontest.WaitFor(t, 10*time.Second, "every line acknowledged", func() bool {
		return daemontest.Acked(t, r.state, r.hostLog) == end
	})
	d.stop(t)
}

// TestUnjournaledLossIsReplayedAfterARestart: a daemon that ends while its
// journal cannot be written (killed, or stopped and unable to flush) has
// not acknowledged the loss line; the next daemon reads it again and
// journals it exactly once.
func TestUnjournaledLossIsReplayedAfterARestart(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		end  func(t *testing.T, p *daemontest.Proc)
	}{
		{"kill -9", func(_ *testing.T, p *daemontest.Proc) { p.Kill() }},
		{"SIGTERM", func(t *testing.T, p *daemontest.Proc) {
			p.Stop(t)
			if !strings.Contains(p.Stderr(), "replay") {
				t.Errorf("the stop does not say the unjournaled lines will be replayed:\n%s", p.Stderr())
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newFaultRig(t)
			p := r.startProc(t)
			r.faultOn(t)
			lossEnd := r.appendLoss(t)
			r.unjournaledLoss(t)
			c.end(t, p)
			r.faultOff(t)

			p = startDaemonProc(t, r.cfg, r.state)
			daemontest.WaitEvent(t, r.state, "session_lost", 1, 10*time.Second)
			r.afterAll(t, 1)
			lost := daemontest.Journal(t, r.state, "session_lost")
			if len(lost) != 1 || lost[0]["log_offset"] != float64(lossEnd) {
				t.Fatalf("after the restart: %v, want the loss line (ending at %d) once", lost, lossEnd)
			}
			if w := outageWarnings(t, r.state); len(w) != 1 || !strings.Contains(w[0], "until the watchdog stopped") {
				t.Fatalf("the outage the last run ended in was warned of %d times: %q; want once, by this start", len(w), w)
			}
			p.Stop(t)
		})
	}
}

// outageWarnings: the details of the journal's warnings about a journal
// that could not be written.
func outageWarnings(t *testing.T, state string) []string {
	t.Helper()
	var out []string
	for _, ev := range daemontest.Journal(t, state, "warning") {
		if d, _ := ev["detail"].(string); strings.Contains(d, "journal could not be written") {
			out = append(out, d)
		}
	}
	return out
}

// TestOutageWarnedOfOnceAcrossAKill: an outage the daemon itself ended
// with its warning is not warned of again by the next start, even when a
// kill -9 came right after (the private state still said "outage" only
// until the warning was written).
func TestOutageWarnedOfOnceAcrossAKill(t *testing.T) {
	t.Parallel()
	r := newFaultRig(t)
	p := r.startProc(t)
	r.faultOn(t)
	r.appendLoss(t)
	r.unjournaledLoss(t)
	r.faultOff(t)
	daemontest.WaitEvent(t, r.state, "session_lost", 1, 10*time.Second)
	p.Kill()

	p = startDaemonProc(t, r.cfg, r.state)
	daemontest.WaitEvent(t, r.state, "started", 2, 10*time.Second)
	r.afterAll(t, 1)
	if w := outageWarnings(t, r.state); len(w) != 1 || strings.Contains(w[0], "until the watchdog stopped") {
		t.Fatalf("one outage, ended and warned of, then a kill -9: warnings %q; want the one the outage's end wrote", w)
	}
	p.Stop(t)
}

// TestUnjournaledStoreChangeIsJudgedAgain: a session that leaves the store
// while the journal cannot be written, then a kill -9, is not forgotten:
// the tracked sessions were not saved past the journal, so the next start
// judges the change again and journals the session's end once.
func TestUnjournaledStoreChangeIsJudgedAgain(t *testing.T) {
	t.Parallel()
	r := newFaultRig(t)
	p := r.startProc(t)
	daemontest.WaitFor(t, 10*time.Second, "the tracked sessions saved", func() bool {
		b, err := os.ReadFile(filepath.Join(r.state, "sessions.json"))
		return err == nil && strings.Contains(string(b), "0f8e4a1c")
	})
	r.faultOn(t)
	r.writeStore(t)
	daemontest.WaitFor(t, 10*time.Second, "the status to drop the session", func() bool {
		_, sessions := daemontest.ServerState(status(t, r.state), "mem")
		return len(sessions) == 0
	})
	// No wait: status is answered by the loop after it applied the store,
	// and a journal write that fails, fails there and then.
	ends := []string{"session_ended", "session_expired", "session_lost"}
	if evs := daemontest.Journal(t, r.state, ends...); len(evs) != 0 {
		t.Fatalf("journaled while every write fails: %v", evs)
	}
	p.Kill()
	r.faultOff(t)

	p = startDaemonProc(t, r.cfg, r.state)
	daemontest.WaitFor(t, 10*time.Second, "the session's end", func() bool {
		return len(daemontest.Journal(t, r.state, ends...)) > 0
	})
	// The barrier: a change of the store after the restart's, journaled in
	// its turn, so anything the restart judged twice would be in before it.
	news := len(daemontest.Journal(t, r.state, "session_new"))
	r.writeStore(t, "barrier-0123456789abcdef")
	daemontest.WaitFor(t, 10*time.Second, "the barrier session's session_new", func() bool {
		return len(daemontest.Journal(t, r.state, "session_new")) > news
	})
	if evs := daemontest.Journal(t, r.state, ends...); len(evs) != 1 {
		t.Fatalf("after the restart: %v, want the session's end once", evs)
	}
	p.Stop(t)
}

// TestSessionBornAndGoneInAnOutageIsJudged: a session that comes and goes
// while the journal cannot be written, then a kill -9: the store changes
// were still taken in and saved for a restart (the log lines were not), so
// the next start journals that session's end once.
func TestSessionBornAndGoneInAnOutageIsJudged(t *testing.T) {
	t.Parallel()
	r := newFaultRig(t)
	p := r.startProc(t)
	r.faultOn(t)
	r.appendLoss(t) // the outage holds this; the store still comes in
	const first, born = "0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b", "7c1de2f3-aaaa-4bbb-8ccc-9ddd0eee1fff"
	r.writeStore(t, first, born)
	daemontest.WaitFor(t, 10*time.Second, "the new session saved for a restart", func() bool {
		b, err := os.ReadFile(filepath.Join(r.state, "sessions.json"))
		return err == nil && strings.Contains(string(b), born)
	})
	r.writeStore(t, first)
	daemontest.WaitFor(t, 10*time.Second, "the status to drop the new session", func() bool {
		_, sessions := daemontest.ServerState(status(t, r.state), "mem")
		return len(sessions) == 1
	})
	p.Kill()
	r.faultOff(t)

	p = startDaemonProc(t, r.cfg, r.state)
	ends := []string{"session_ended", "session_expired", "session_lost"}
	daemontest.WaitFor(t, 10*time.Second, "the new session's end", func() bool {
		for _, ev := range daemontest.Journal(t, r.state, ends...) {
			if ev.Str("session") == "7c1d…1fff" {
				return true
			}
		}
		return false
	})
	p.Stop(t)
}

// TestNoBubbleBeforeItsEventIsJournaled: a loss decided while the journal
// cannot be written is not told until it is journaled; a kill -9 in the
// outage would otherwise leave a bubble the journal, and the restart's
// redelivery, know nothing of.
func TestNoBubbleBeforeItsEventIsJournaled(t *testing.T) {
	t.Parallel()
	r := newFaultRig(t)
	var shown shownTitles
	d := startDaemonOpts(t, r.cfg, r.state, faultOpts(r.fault, daemon.Options{Send: shown.send}))
	r.faultOn(t)
	r.appendLoss(t)
	r.unjournaledLoss(t)
	if got := shown.all(); len(got) != 0 {
		t.Fatalf("shown while the loss is not journaled: %q", got)
	}
	r.faultOff(t)
	daemontest.WaitEvent(t, r.state, "session_lost", 1, 15*time.Second)
	daemontest.WaitFor(t, 10*time.Second, "the loss told once journaled", func() bool {
		return slices.ContainsFunc(shown.all(), func(s string) bool { return strings.Contains(s, "session lost") })
	})
	d.stop(t)
}

// faultOpts is o with the journal's fault drill at file.
func faultOpts(file string, o daemon.Options) daemon.Options {
	o.JournalFaultFile = file
	return o
}
