//go:build watchdogdebug

package adopt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// faultRig is a Claude Code with its own file and a project's .mcp.json,
// and a watchdog config the user wrote (or none), with a running daemon
// that serves what it is given.
type faultRig struct {
	*rig
	own, proj string
	myConfig  bool
}

func newFaultRig(t *testing.T, myConfig bool) *faultRig {
	t.Helper()
	own, _ := fixture(t, "claude-code.json", ".claude.json")
	proj, _ := fixture(t, "claude-code-project/.mcp.json", ".mcp.json")
	r := &faultRig{rig: newRig(t, host.ClaudeCode(), own, proj), own: own, proj: proj, myConfig: myConfig}
	r.o.Served = func(context.Context, []string) error { return nil }
	if myConfig {
		if err := os.MkdirAll(filepath.Dir(r.o.ConfigPath), 0o700); err != nil {
			t.Fatal(err)
		}
		mine := "# mine\nnotify = false\n\n[[server]]\nname = \"nowledge-mem\"\nurl = \"http://127.0.0.1:14242/mcp\"\n"
		if err := os.WriteFile(r.o.ConfigPath, []byte(mine), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// files is every file a transaction may write, with its bytes now (nil:
// absent): the stdio servers' wrappers too.
func (r *faultRig) files(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	wrappers, _ := filepath.Glob(filepath.Join(r.o.StateDir, WrappersDir, "*"))
	for _, p := range append([]string{r.own, r.proj, r.o.ConfigPath, filepath.Join(r.o.StateDir, RecordFile)}, wrappers...) {
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		out[p] = b
	}
	return out
}

// steps runs do once with a fault hook that fails nothing, and returns
// the steps it passed, in order.
func steps(t *testing.T, o *Options, do func() error) []string {
	t.Helper()
	var seen []string
	o.fault = func(s string) error { seen = append(seen, s); return nil }
	if err := do(); err != nil {
		t.Fatal(err)
	}
	o.fault = nil
	return seen
}

// TestFaultAtEveryStep: a failure injected at every step of adopt and of
// release (a full disk, a permission refused, a rename refused, the
// daemon gone) leaves every file as it was before the run, the record
// agreeing with the watchdog's config, and no temp file behind.
func TestFaultAtEveryStep(t *testing.T) {
	t.Parallel()
	kinds := []error{syscall.ENOSPC, syscall.EACCES, syscall.EXDEV, errors.New("the running watchdog is gone")}
	for _, myConfig := range []bool{false, true} {
		probe := newFaultRig(t, myConfig)
		adoptSteps := steps(t, &probe.o, func() error { _, err := Adopt(t.Context(), probe.o); return err })
		releaseSteps := steps(t, &probe.o, func() error { _, err := Release(t.Context(), probe.o); return err })
		wrapperSteps := func(steps []string, verb string) bool {
			return slices.ContainsFunc(steps, func(s string) bool { return strings.HasPrefix(s, verb+" the wrapper of files in ") })
		}
		if !slices.ContainsFunc(adoptSteps, func(s string) bool { return strings.HasSuffix(s, "/swap") }) || len(releaseSteps) < 4 ||
			!wrapperSteps(adoptSteps, "writing") || !wrapperSteps(releaseSteps, "removing") {
			t.Fatalf("steps seen: adopt %q, release %q", adoptSteps, releaseSteps)
		}
		for _, step := range adoptSteps {
			for _, kind := range kinds {
				t.Run(fmt.Sprintf("adopt/config %v/%s/%v", myConfig, step, kind), func(t *testing.T) {
					r := newFaultRig(t, myConfig)
					before := r.files(t)
					r.o.fault = failAt(rename(step, probe, r), kind)
					_, err := Adopt(t.Context(), r.o)
					checkUndone(t, r, before, err, kind)
				})
			}
		}
		for _, step := range releaseSteps {
			for _, kind := range kinds {
				t.Run(fmt.Sprintf("release/config %v/%s/%v", myConfig, step, kind), func(t *testing.T) {
					r := newFaultRig(t, myConfig)
					if _, err := Adopt(t.Context(), r.o); err != nil {
						t.Fatal(err)
					}
					before := r.files(t)
					r.o.fault = failAt(rename(step, probe, r), kind)
					_, err := Release(t.Context(), r.o)
					checkUndone(t, r, before, err, kind)
				})
			}
		}
	}
}

// rename moves a step's name from the probe rig's paths to r's.
func rename(step string, probe, r *faultRig) string {
	return strings.NewReplacer(probe.own, r.own, probe.proj, r.proj, probe.o.ConfigPath, r.o.ConfigPath).Replace(step)
}

func failAt(step string, err error) func(string) error {
	return func(s string) error {
		if s == step {
			return err
		}
		return nil
	}
}

func checkUndone(t *testing.T, r *faultRig, before map[string][]byte, err error, kind error) {
	t.Helper()
	if !errors.Is(err, kind) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("the run said %v; want the fault and that nothing was changed", err)
	}
	for path, b := range r.files(t) {
		if !bytes.Equal(b, before[path]) {
			t.Errorf("%s differs after the failed run:\n%s\nwas\n%s", filepath.Base(path), b, before[path])
		}
	}
	agree(t, r.o)
	for _, p := range []string{r.own, r.proj, r.o.ConfigPath} {
		noTemps(t, p)
	}
}

// A fault after the host files were written, while the user has edited
// one of them since: undoing takes out adopt's URLs and keeps the user's
// edit: the file is the original with the user's change, never a mix with
// adopt's.
func TestUndoKeepsTheUsersEdit(t *testing.T) {
	t.Parallel()
	r := newFaultRig(t, false)
	orig := read(t, r.own)
	r.o.fault = func(s string) error {
		if s != "checking the written files" {
			return nil
		}
		edit(t, r.own, `"numStartups": 42`, `"numStartups": 43`)
		return syscall.EIO
	}
	if _, err := Adopt(t.Context(), r.o); !errors.Is(err, syscall.EIO) {
		t.Fatalf("adopt: %v", err)
	}
	want := bytes.Replace(orig, []byte(`"numStartups": 42`), []byte(`"numStartups": 43`), 1)
	if got := read(t, r.own); !bytes.Equal(got, want) {
		t.Fatalf("after the undo:\n%s\nwant the original with the user's edit:\n%s", got, want)
	}
	agree(t, r.o)
}

// noTemps fails the test when a temp file is left beside path.
func noTemps(t *testing.T, path string) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*watchdog*"))
	left2, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp*"))
	if len(left)+len(left2) > 0 {
		t.Fatalf("temp files left: %v %v", left, left2)
	}
}
