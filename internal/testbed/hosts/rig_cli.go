package hosts

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/testbed/demoserver"
)

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
