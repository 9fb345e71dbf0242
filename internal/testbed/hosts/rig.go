package hosts

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/testbed/demoserver"
)

// Waits of the rig: generous, since DSH boots a few hundred plugins and
// the machine may be busy; a test never sleeps them out.
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
	Host   *Proc
	tool   string // the model-facing name of the server's echo tool in the host
	// echoed says whether a tool result is the echo of text: how the
	// host hands back a call that worked.
	echoed func(content, text string) bool
	Home   string // the host's DSH_HOME and HOME
	// Store and Log are the server's session store and log, as a real
	// server keeps them (what the watchdog follows).
	Store, Log string

	mu     sync.Mutex
	events []demoserver.Event
	ended  chan demoserver.Event
}

// NewRig starts the real server of kind (sessions expire after idle; 0:
// never) and the stand-in model; StartDSH then starts the host.
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

// MustDSH is the installed real DSH host; a missing install fails the
// test with the command that installs it.
func MustDSH(t *testing.T) DSHInstall {
	t.Helper()
	root, err := fsutil.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	in, err := FindDSH(root)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// PrivateDSH is a copy of the install the test may change (the client
// patch), laid out as `npm install -g` lays a global prefix out:
// PREFIX/lib/node_modules, and PREFIX/bin/dsh-<random> linking to the
// host's entry (its process then runs as `node PREFIX/bin/dsh-<random>`,
// as a real one runs as `node PREFIX/bin/dsh`; the random part keeps a
// test's watchdog from taking another test's host for its own).
// The copy is hard links, so it costs no disk and a moment; the patch
// writes a new file and renames it over its link, never into the shared
// install.
func PrivateDSH(t *testing.T, in DSHInstall) (DSHInstall, string) {
	t.Helper()
	prefix := t.TempDir()
	mods := filepath.Join(prefix, "lib", "node_modules")
	bin := filepath.Join(prefix, "bin")
	for _, dir := range []string{filepath.Dir(mods), bin} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(in.Dir, "node_modules")
	if out, err := exec.Command("cp", "-al", src, mods).CombinedOutput(); err != nil {
		t.Fatalf("copy the %s install (cp -al %s %s): %v\n%s", in.Name, src, mods, err, out)
	}
	rel := func(p string) string {
		r, err := filepath.Rel(src, p)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Join(mods, r)
	}
	priv := DSHInstall{Name: in.Name, Dir: prefix, Recipe: in.Recipe, Node: rel(in.Node), Bin: rel(in.Bin), Version: in.Version}
	var token [4]byte
	if _, err := rand.Read(token[:]); err != nil {
		t.Fatal(err)
	}
	priv.Command = filepath.Join(bin, host.DSH().Process+"-"+hex.EncodeToString(token[:]))
	target, err := filepath.Rel(bin, priv.Bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, priv.Command); err != nil {
		t.Fatal(err)
	}
	return priv, prefix
}

// StartDSH starts the host on the install with its one server at url.
func (r *Rig) StartDSH(in DSHInstall, url string) {
	r.t.Helper()
	d, err := StartDSH(in, HostOptions{Home: r.Home, Workdir: r.t.TempDir(), ServerURL: url,
		ModelURL: r.Model.URL(), Task: "Call the echo tool when asked."})
	if err != nil {
		r.t.Fatal(err)
	}
	r.Host, r.tool = d, DSHTool("echo")
	r.echoed = func(content, text string) bool { return content == text }
	r.t.Cleanup(func() {
		d.Stop()
		if r.t.Failed() {
			r.t.Logf("%s's output:\n%s", in.Name, d.Output())
		}
	})
}

// Call has the model call the server's echo tool with text and returns
// what the host handed back, and whether it is the echo (the call worked).
func (r *Rig) Call(text string) (ToolResult, bool) {
	r.t.Helper()
	args, _ := json.Marshal(demoserver.EchoInput{Text: text})
	if err := r.Model.Say(Turn{Tool: r.tool, Args: string(args)}, bootWithin, r.Host.Exited()); err != nil {
		r.hostFailed(err)
	}
	res, err := r.Model.Result(callWithin, r.Host.Exited())
	if err != nil {
		r.hostFailed(err)
	}
	return res, r.echoed(res.Content, text)
}

// hostFailed fails the test with how the host ended and what it printed.
func (r *Rig) hostFailed(err error) {
	r.t.Helper()
	how := "still running"
	select {
	case <-r.Host.Exited():
		how = fmt.Sprintf("exited: %v", r.Host.Wait(0))
	default:
	}
	out := r.Host.Output()
	if strings.Contains(out, "EMFILE") {
		how += " (EMFILE: the host needs an inotify instance to boot, and this user's " +
			"fs.inotify.max_user_instances are used up: look for leaked processes holding them)"
	}
	r.t.Fatalf("%v; the host %s; its output:\n%s", err, how, out)
}

// Finish has the model end the task and waits for the host to exit 0.
func (r *Rig) Finish() {
	r.t.Helper()
	if err := r.Model.Say(Turn{Text: "done"}, callWithin, r.Host.Exited()); err != nil {
		r.hostFailed(err)
	}
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
func (r *Rig) Ran(text string) int {
	n := 0
	for _, e := range r.Events() {
		if e.Kind == demoserver.EventCall && e.Text == text {
			n++
		}
	}
	return n
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

// StartCodex starts the Codex CLI on the install with its one server at url.
func (r *Rig) StartCodex(in CodexInstall, url string) {
	r.t.Helper()
	d, err := StartCodex(in, HostOptions{Home: r.Home, Workdir: r.t.TempDir(), ServerURL: url,
		ModelURL: r.Model.URL(), Task: "Call the echo tool when asked."})
	if err != nil {
		r.t.Fatal(err)
	}
	r.Host, r.tool = d, CodexTool("echo")
	// Codex hands back "Wall time: …\nOutput:" and then the structured
	// result ({"text":…}, the Go SDK server's) or else the text.
	r.echoed = func(content, text string) bool {
		_, out, ok := strings.Cut(content, "\nOutput:")
		want, _ := json.Marshal(demoserver.EchoOutput{Text: text})
		out = strings.TrimSpace(out)
		return ok && (out == text || out == string(want))
	}
	r.t.Cleanup(func() {
		d.Stop()
		if r.t.Failed() {
			r.t.Logf("%s's output:\n%s", in.Name, d.Output())
		}
	})
}

// MustCodex is the installed real Codex CLI; a missing install fails the
// test with the command that installs it.
func MustCodex(t *testing.T) CodexInstall {
	t.Helper()
	root, err := fsutil.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	in, err := FindCodex(root)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// StartGemini starts the Gemini CLI on the install with its one server at url.
func (r *Rig) StartGemini(in GeminiInstall, url string) {
	r.t.Helper()
	d, err := StartGemini(in, HostOptions{Home: r.Home, Workdir: r.t.TempDir(), ServerURL: url,
		ModelURL: r.Model.URL(), Task: "Call the echo tool when asked."})
	if err != nil {
		r.t.Fatal(err)
	}
	r.Host, r.tool = d, GeminiTool("echo")
	// Gemini CLI hands back {"output": …} (the text, fenced as untrusted
	// context) or {"error": …}.
	r.echoed = func(content, text string) bool {
		var res struct{ Output, Error string }
		if json.Unmarshal([]byte(content), &res) != nil || res.Error != "" {
			return false
		}
		return slices.Contains(strings.Split(res.Output, "\n"), text)
	}
	r.t.Cleanup(func() {
		d.Stop()
		if r.t.Failed() {
			r.t.Logf("%s's output:\n%s", in.Name, d.Output())
		}
	})
}

// MustGemini is the installed real Gemini CLI; a missing install fails
// the test with the command that installs it.
func MustGemini(t *testing.T) GeminiInstall {
	t.Helper()
	root, err := fsutil.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	in, err := FindGemini(root)
	if err != nil {
		t.Fatal(err)
	}
	return in
}
