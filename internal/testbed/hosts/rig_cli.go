package hosts

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"
)

// startCLI starts a command line host (name) with start, its one server
// at url: the server's echo tool is tool in the host, and echoed tells
// the result of a call that worked. The host is stopped when the test
// ends, and its output logged when the test failed.
func (r *Rig) startCLI(name, url string, start func(HostOptions) (*Proc, error), tool string, echoed func(content, text string) bool) {
	r.t.Helper()
	d, err := start(HostOptions{Home: r.Home, Workdir: r.t.TempDir(), ServerURL: url, Stdio: r.Stdio.argv(),
		KeepConfig: r.Stdio.kept(), ModelURL: r.Model.URL(), Task: "Call the echo tool when asked."})
	if err != nil {
		r.t.Fatal(err)
	}
	r.Host, r.tool, r.echoed = d, tool, echoed
	r.t.Cleanup(func() {
		d.Stop()
		if r.t.Failed() {
			r.t.Logf("%s's output:\n%s", name, d.Output())
		}
	})
}

// isEcho says whether out is the echo tool's result for text: its
// structured result ({"text":…}, the Go SDK server's) or else the text.
func isEcho(out, text string) bool {
	want, _ := json.Marshal(demoserver.EchoOutput{Text: text})
	return out == text || out == string(want)
}

// mustFind is the install find finds under the module's root; a missing
// install fails the test with the command that installs it.
func mustFind[T any](t *testing.T, find func(root string) (T, error)) T {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	in, err := find(root)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// StartCodex starts the Codex CLI on the install with its one server at url.
func (r *Rig) StartCodex(in CodexInstall, url string) {
	r.t.Helper()
	// Codex hands back "Wall time: …\nOutput:" and then the structured
	// result ({"text":…}, the Go SDK server's) or else the text.
	r.startCLI(in.Name, url, func(o HostOptions) (*Proc, error) { return StartCodex(in, o) }, CodexTool("echo"),
		func(content, text string) bool {
			_, out, ok := strings.Cut(content, "\nOutput:")
			return ok && isEcho(strings.TrimSpace(out), text)
		})
}

// MustCodex is the installed real Codex CLI; a missing install fails the
// test with the command that installs it.
func MustCodex(t *testing.T) CodexInstall {
	t.Helper()
	return mustFind(t, FindCodex)
}

// StartGemini starts the Gemini CLI on the install with its one server at url.
func (r *Rig) StartGemini(in GeminiInstall, url string) {
	r.t.Helper()
	// Gemini CLI hands back {"output": …} (the text, fenced as untrusted
	// context) or {"error": …}.
	r.startCLI(in.Name, url, func(o HostOptions) (*Proc, error) { return StartGemini(in, o) }, GeminiTool("echo"),
		func(content, text string) bool {
			var res struct{ Output, Error string }
			if json.Unmarshal([]byte(content), &res) != nil || res.Error != "" {
				return false
			}
			return slices.Contains(strings.Split(res.Output, "\n"), text)
		})
}

// MustGemini is the installed real Gemini CLI; a missing install fails
// the test with the command that installs it.
func MustGemini(t *testing.T) GeminiInstall {
	t.Helper()
	return mustFind(t, FindGemini)
}

// StartClaude starts Claude Code on the install with its one server at url.
func (r *Rig) StartClaude(in ClaudeInstall, url string) {
	r.t.Helper()
	// Claude Code hands back the tool's result as it is.
	r.startCLI(in.Name, url, func(o HostOptions) (*Proc, error) { return StartClaude(in, o) }, ClaudeTool("echo"),
		isEcho)
}

// MustClaude is the installed real Claude Code CLI; a missing install
// fails the test with the command that installs it.
func MustClaude(t *testing.T) ClaudeInstall {
	t.Helper()
	return mustFind(t, FindClaude)
}

// workdir is the folder the rig's host runs in: one per rig, so that a
// host's own CLI and its prompt run share it.
func (r *Rig) workdir() string {
	if r.work == "" {
		r.work = r.t.TempDir()
	}
	return r.work
}

// cliOptions are the options a CLI host runs with on the server at url.
func (r *Rig) cliOptions(url string) HostOptions {
	return HostOptions{Home: r.Home, Workdir: r.workdir(), ServerURL: url, Stdio: r.Stdio.argv(), ModelURL: r.Model.URL(),
		Task: "Call the echo tool when asked."}
}

// PrepareCLIHost registers the server at url with the host's own CLI, and
// its model, as a user would before the first prompt.
func (r *Rig) PrepareCLIHost(in installed, url string) {
	r.t.Helper()
	if err := in.prepare(r.cliOptions(url)); err != nil {
		r.t.Fatal(err)
	}
}

// StartCLIHost runs one prompt of the installed host, on the server it
// was prepared with (PrepareCLIHost). What its run leaves behind is
// ended when the test ends, after the host.
func (r *Rig) StartCLIHost(in installed) {
	r.t.Helper()
	o := r.cliOptions("")
	r.t.Cleanup(func() { in.endHelpers(o.Workdir) })
	r.Model.SetSide(in.h.side)
	r.startCLI(in.h.Prof.Name, "", func(HostOptions) (*Proc, error) { return in.start(o) }, in.h.Tool, in.h.echoed)
}
