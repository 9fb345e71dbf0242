package hosts

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// Waits of the rig: generous, since DSH boots a few hundred plugins and
// the machine may be busy; each is a bound on waiting for an event, never
// a sleep.
const (
	bootWithin = 90 * time.Second // DSH's first model request
	callWithin = 60 * time.Second // a tool call's result
	lossWithin = 30 * time.Second // the server ending a session
)

// Rig is one real host with one real server and the stand-in model API.
// Every server event is kept: the ground truth of which sessions ended
// and which calls ran.
type Rig struct {
	t      *testing.T
	Server server
	Kind   ServerKind
	Model  *ModelAPI
	// Host is the host the test started; nil for one it did not (the
	// host the watchdog restarted), whose output HostOutput reads.
	Host       *Proc
	HostOutput func() string
	tool       string // the model-facing name of the server's echo tool in the host
	// echoed says whether a tool result is the echo of text: how the
	// host hands back a call that worked.
	echoed func(content, text string) bool
	Home   string // the host's HOME (and DSH_HOME, CODEX_HOME below it)
	work   string // the folder a CLI host runs in (workdir)
	// Store and Log are the server's session store and log, as a real
	// server keeps them (what the watchdog follows).
	Store, Log string
	// Module is the patched client module the host runs ("" when it runs
	// unpatched): the watchdog's client_module.
	Module string
	// Stdio is the rig's stdio server (NewStdioRig), which the host runs
	// itself; nil for a rig of an HTTP server.
	Stdio *StdioServer

	mu     sync.Mutex
	events []demoserver.Event
	ended  chan demoserver.Event
}

// NewRig starts the real server of kind (sessions expire after idle; 0:
// never) and the stand-in model; StartDSH, StartCodex or StartGemini then
// starts the host.
func NewRig(t *testing.T, kind ServerKind, idle time.Duration) *Rig {
	t.Helper()
	dir := t.TempDir()
	r := &Rig{t: t, Kind: kind, Home: t.TempDir(), ended: make(chan demoserver.Event, 64),
		Store: filepath.Join(dir, "mcp-sessions.json"), Log: filepath.Join(dir, "server.log")}
	r.Server = r.startServer(t, kind, idle)
	m, err := StartModelAPI()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	r.Model = m
	return r
}

func (r *Rig) onEvent(e demoserver.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	if e.Kind == demoserver.EventEnd {
		select {
		case r.ended <- e:
		default:
		}
	}
}

// Call has the model call the server's echo tool with text and returns
// what the host handed back, and whether it is the echo (the call worked).
func (r *Rig) Call(text string) (ToolResult, bool) {
	r.t.Helper()
	res, ok, answered := r.CallWithin(text, callWithin)
	if !answered {
		r.hostFailed(fmt.Errorf("model api: no tool result within %v (%s)", callWithin, r.Model.Err()))
	}
	return res, ok
}

// CallWithin is Call for a host that may hang on the call: answered is
// false when no result came back within within (the host still waits).
func (r *Rig) CallWithin(text string, within time.Duration) (res ToolResult, ok, answered bool) {
	r.t.Helper()
	args, _ := json.Marshal(demoserver.EchoInput{Text: text})
	if err := r.Model.Say(Turn{Tool: r.tool, Args: string(args)}, bootWithin, r.exited()); err != nil {
		r.hostFailed(err)
	}
	res, err := r.Model.Result(within, r.exited())
	switch {
	case errors.Is(err, ErrHostExited):
		r.hostFailed(err)
	case err != nil:
		return ToolResult{}, false, false
	}
	return res, r.echoed(res.Content, text), true
}

// exited is closed once the host exited; nil (never closed) for a host
// the test did not start, which only the waits' bounds then cut short.
func (r *Rig) exited() <-chan struct{} {
	if r.Host == nil {
		return nil
	}
	return r.Host.Exited()
}

// output is what the host printed so far.
func (r *Rig) output() string {
	if r.Host == nil {
		if r.HostOutput == nil {
			return "(unknown)"
		}
		return r.HostOutput()
	}
	return r.Host.Output()
}

// hostFailed fails the test with how the host ended and what it printed.
func (r *Rig) hostFailed(err error) {
	r.t.Helper()
	how := "still running"
	if r.Host == nil {
		how = "(not the test's child) may be running"
	} else {
		select {
		case <-r.Host.Exited():
			how = fmt.Sprintf("exited: %v", r.Host.Wait(0))
		default:
		}
	}
	out := r.output()
	if strings.Contains(out, "EMFILE") {
		how += " (EMFILE: the host needs an inotify instance to boot, and this user's " +
			"fs.inotify.max_user_instances are used up: look for leaked processes holding them)"
	}
	r.t.Fatalf("%v; the host %s; its output:\n%s", err, how, out)
}

// EndTurn has the model end the turn: its final text answers the host's
// next request.
func (r *Rig) EndTurn() {
	r.t.Helper()
	if err := r.Model.Say(Turn{Text: "done"}, callWithin, r.exited()); err != nil {
		r.hostFailed(err)
	}
}

// Finish has the model end the task and waits for the host to exit 0.
func (r *Rig) Finish() {
	r.t.Helper()
	r.EndTurn()
	if err := r.Host.Wait(callWithin); err != nil {
		r.hostFailed(fmt.Errorf("the task did not end cleanly: %w", err))
	}
}

// WaitEnd waits for the server to end a session of client for reason
// and returns that event.
func (r *Rig) WaitEnd(client string, reason demoserver.Reason) demoserver.Event {
	r.t.Helper()
	timer := time.NewTimer(lossWithin)
	defer timer.Stop()
	for {
		select {
		case e := <-r.ended:
			if e.Client == client && e.Reason == reason {
				return e
			}
		case <-timer.C:
			r.t.Fatalf("the server ended no session of %q (%s) within %v; its events: %v", client, reason, lossWithin, r.Events())
		}
	}
}

// Events are the server's events so far.
func (r *Rig) Events() []demoserver.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]demoserver.Event(nil), r.events...)
}

// Ran counts the echo calls the server ran with text.
func (r *Rig) Ran(text string) int { return len(r.RanOn(text)) }

// RanOn lists the sessions the server ran each echo call with text on,
// in order.
func (r *Rig) RanOn(text string) []string {
	var ids []string
	for _, e := range r.Events() {
		if e.Kind == demoserver.EventCall && e.Text == text {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// Started counts the sessions the server started for client.
func (r *Rig) Started(client string) int { return len(r.SessionsOf(client)) }

// SessionsOf lists the ids of the sessions the server started for client,
// in order.
func (r *Rig) SessionsOf(client string) []string {
	var ids []string
	for _, e := range r.Events() {
		if e.Kind == demoserver.EventStart && e.Client == client {
			ids = append(ids, e.ID)
		}
	}
	return ids
}
