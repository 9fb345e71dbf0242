package host_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

var updateReadme = flag.Bool("update-readme", false, "write the table of every host in docs/HOSTS.md from the profiles")

// The table of every host (docs/HOSTS.md) sits between these markers; the
// flag keeps its name from when the table was in the README.
const (
	knownBegin = "<!-- hosts-known:begin (go test ./internal/host -update-readme writes this table from the profiles) -->"
	knownEnd   = "<!-- hosts-known:end -->"
)

// TestHostsDocListsEveryHost: the table of every host in docs/HOSTS.md is
// the profiles' own word (their files, behaviour per answer and where it
// is known from, and what protects each): a host added or changed in its
// profile and not in docs/HOSTS.md fails here (-update-readme rewrites it).
func TestHostsDocListsEveryHost(t *testing.T) {
	t.Parallel()
	const doc = "../../docs/HOSTS.md"
	old, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(old, []byte(knownBegin)), bytes.Index(old, []byte(knownEnd))
	if i < 0 || j < i {
		t.Fatalf("%s lacks the lines %q and %q around the table of every host", doc, knownBegin, knownEnd)
	}
	want := knownTable()
	if string(old[i+len(knownBegin):j]) == want {
		return
	}
	if !*updateReadme {
		t.Fatalf("%s: the table of every host is not the profiles': run go test ./internal/host -update-readme\nwant:%s", doc, want)
	}
	out := append(append(append([]byte{}, old[:i+len(knownBegin)]...), want...), old[j:]...)
	if err := os.WriteFile(doc, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// knownTable renders every profile, one line each.
func knownTable() string {
	var b strings.Builder
	b.WriteString("\n| host | its servers (Linux) | after a lost session: 404 JSON-RPC · plain 404 · 400 | known from | how the watchdog protects it | a stdio server that dies |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, p := range host.Profiles() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", p.Name, filesOf(p), reactions(p.Behaviour), knownFrom(p), protects(p), stdioDeath(p))
	}
	return b.String()
}

func filesOf(p host.Profile) string {
	var out []string
	for _, c := range p.Config {
		for _, n := range c.Names {
			out = append(out, "`~/"+path.Join(c.Linux, n)+"`")
		}
		if len(c.Names) == 0 && len(c.Env) > 0 {
			out = append(out, "`$"+c.Env[0].Var+"`")
		}
	}
	var proj []string
	for _, f := range p.ProjectFiles.Files {
		proj = append(proj, "`"+f.Name+"`")
	}
	s := strings.Join(out, ", ")
	if len(proj) > 0 {
		s += "; a project's " + strings.Join(proj, ", ")
	}
	return s
}

func reactions(b host.Behaviour) string {
	var out []string
	for _, a := range host.Answers() {
		r := string(b.On(a))
		if r == "" {
			r = "not known"
		}
		out = append(out, r)
	}
	return strings.Join(out, " · ")
}

func knownFrom(p host.Profile) string {
	b := p.Behaviour
	switch {
	case b.Measured != "" && b.Note != "":
		return "measured on " + b.Measured + ": " + b.Note
	case b.Measured != "":
		return "measured on " + b.Measured
	}
	return b.Note
}

func protects(p host.Profile) string {
	adopt := "`" + p.AdoptCommand() + "`"
	var s string
	switch b := p.Behaviour; {
	case p.Patchable():
		s = "`watchdog patch apply`, or the proxy: " + adopt
	case b.On(host.NotFoundRPC) == host.Retries && b.On(host.NotFoundText) == host.Retries && b.On(host.BadRequest) == host.Retries:
		s = "heals itself after every answer: nothing needed"
	case b.On(host.NotFoundRPC) == host.Reinitializes && b.On(host.BadRequest) == host.Reinitializes:
		s = "heals itself, but the call that meets a loss fails; through the proxy it does not: " + adopt
	case b.HealsAny():
		s = "heals itself after " + b.Healed() + "; on a server answering otherwise, the proxy: " + adopt
	default:
		s = "the proxy: " + adopt
	}
	if p.OneShot {
		s += " (one process per prompt: its next run reads the change; never restarted)"
	}
	return s
}

// stdioDeath is what the host does when its stdio server dies, where that
// is known from, and what the watchdog does about it.
func stdioDeath(p host.Profile) string {
	st := p.Behaviour.Stdio
	s := st.Words()
	if st.Measured != "" {
		s += " (measured on " + st.Measured + ")"
	}
	if !st.Heals() || st.On == host.Reinitializes {
		s += "; `" + p.AdoptCommand() + "` runs it under `watchdog stdio`, which starts it again"
	}
	return s
}
