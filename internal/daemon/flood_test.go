package daemon_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// floodRig: a server whose log the test floods, followed by a daemon with
// notifications on.
type floodRig struct {
	cfg, state, log string
}

const (
	floodLoss      = "WARN Session not found"
	floodReconnect = "INFO Reconnected to MCP server"
	// floodEnd is a line after the flood that journals server_mode: once
	// it is journaled, every line before it was handled.
	floodEnd = "INFO MCP session idle timeout and restart restore store configured seconds=4242 store_path=/x"
)

func newFloodRig(t *testing.T) floodRig {
	t.Helper()
	dir := t.TempDir()
	r := floodRig{state: filepath.Join(dir, "state"), log: filepath.Join(dir, "server.log")}
	daemontest.AppendLine(t, r.log, "INFO server started")
	r.cfg = daemontest.WriteConfig(t, dir, fmt.Sprintf(`
notify = true
[host]
process = ""
port = 0
[[server]]
name = "mem"
url = "http://127.0.0.1:9/mcp"
logs = [%q]
keep_warm = false
`, r.log))
	return r
}

// flood appends n pairs of a loss line and a reconnect line in one write.
func (r floodRig) flood(t *testing.T, n int) {
	t.Helper()
	f, err := os.OpenFile(r.log, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for range n {
		fmt.Fprintf(w, "%s\n%s\n", floodLoss, floodReconnect)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// Issue 15, measured: a burst of loss lines, each followed by a
// reconnect, made an incident per pair: ~1.5M notifications queued, and
// with notify off the journal rotated all its history away. The rounds
// of a flapping session are one incident now, and its bubbles few.
func TestLogFloodIsOneFlappingIncident(t *testing.T) {
	t.Parallel()
	r := newFloodRig(t)
	var shown shownTitles
	d := startDaemonOpts(t, r.cfg, r.state, daemon.Options{Send: shown.send})
	const pairs = 5000
	r.flood(t, pairs)
	daemontest.AppendLine(t, r.log, floodEnd)
	daemontest.WaitEvent(t, r.state, "server_mode", 1, 60*time.Second)
	d.stop(t)

	lost, recovered := daemontest.Journal(t, r.state, "session_lost"), daemontest.Journal(t, r.state, "recovered")
	if len(lost) > 41 || len(recovered) > 41 {
		t.Fatalf("%d loss/reconnect pairs journaled %d session_lost and %d recovered, want one flapping incident after at most 40",
			pairs, len(lost), len(recovered))
	}
	if last := lost[len(lost)-1]; last["flapping"] != true {
		t.Fatalf("the last loss is not the flapping incident: %v", last)
	}
	if started := daemontest.Journal(t, r.state, "started"); len(started) != 1 {
		t.Fatalf("started records: %d", len(started))
	}
	titles := shown.all()
	if len(titles) > 20 {
		t.Fatalf("%d bubbles for one flood: %q", len(titles), titles)
	}
	if !slices.ContainsFunc(titles, func(s string) bool {
		return s == "mem: session lost — the watchdog is healing it" || strings.Contains(s, "sessions lost: mem")
	}) {
		t.Fatalf("the loss was never told: %q", titles)
	}
}

// Issue 15, measured: in a flood SIGTERM closed the control socket but the
// daemon went on draining for minutes, and after a kill -9 the restarted
// daemon, replaying the flood, ignored SIGTERM for over 10 minutes. A stop
// now ends the drain: what is left unread is not acknowledged and comes
// back at the next start.
func TestStopInTheMiddleOfAFlood(t *testing.T) {
	t.Parallel()
	r := newFloodRig(t)
	p := startDaemonProc(t, r.cfg, r.state)
	r.flood(t, 200000)
	time.Sleep(200 * time.Millisecond) // mid-flood: reading, journaling
	p.Kill()
	// The restart replays the flood from the last acknowledged line.
	p = startDaemonProc(t, r.cfg, r.state)
	p.Stop(t) // fails the test unless it exits within 10 s
	if started, stopped := daemontest.Journal(t, r.state, "started"), daemontest.Journal(t, r.state, "stopped"); len(started) != 2 || len(stopped) != 1 {
		t.Fatalf("started %d, stopped %d; want 2 and 1", len(started), len(stopped))
	}
}
