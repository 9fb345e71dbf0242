//go:build linux

package stdio_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/proxywire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The measurement the supervisor exists for: the server killed -9 after
// the 1st and the 2nd result; every call works, with 3 server starts, in
// both eras. The next call comes once the supervisor has seen the death,
// as the measured hosts' calls came seconds after the kill (a call that
// races the kill may be read by the dying process: that one gets the
// death's error, see TestACallCutOffByTheDeathGetsAnError).
func TestKilledBetweenCallsEveryCallWorks(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			r := start(t, nil)
			cs := r.client(nil, era)
			for i := range 4 {
				got, err := call(t, cs, "echo", map[string]any{"text": "hi"})
				if err != nil || got != "hi" {
					t.Fatalf("call %d: %q, %v (stderr: %s)", i+1, got, err, r.stderr)
				}
				if i < 2 {
					r.kill()
					waitFor(t, "the death to be seen", func() bool { return count(r.kinds(), proxywire.StdioExited) == i+1 })
				}
			}
			if n := len(r.servers()); n != 3 {
				t.Errorf("server starts = %d, want 3", n)
			}
			want := []string{proxywire.StdioStarted, proxywire.StdioExited, proxywire.StdioRestarted, proxywire.StdioExited, proxywire.StdioRestarted}
			waitFor(t, "the reports "+strings.Join(want, ", "), func() bool { return slices.Equal(r.kinds(), want) })
			ex := r.waitKind(proxywire.StdioExited)
			if ex.Exit != "signal: killed" || ex.Host != "Codex CLI" || ex.Server != "mem" || !strings.Contains(ex.Detail, "Codex CLI: mem exited") {
				t.Errorf("exited report = %+v", ex)
			}
		})
	}
}

// A call in flight when the server dies is answered with an error that
// says it may or may not have run, and is never sent again; the next
// call works.
func TestACallCutOffByTheDeathGetsAnError(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			r := start(t, nil)
			cs := r.client(nil, era)
			_, err := call(t, cs, "crash", map[string]any{})
			if err == nil || !strings.Contains(err.Error(), "may or may not have run") || !strings.Contains(err.Error(), `"mem" exited`) {
				t.Fatalf("the call the crash cut off: %v, want an error saying it may or may not have run", err)
			}
			if got, err := call(t, cs, "count", map[string]any{}); err != nil || got != "1" {
				t.Fatalf("the next call: %q, %v (the crash call must not be sent again: count 1)", got, err)
			}
			if f := r.waitKind(proxywire.StdioCallFailed); f.Method != "tools/call" {
				t.Errorf("call_failed method = %q", f.Method)
			}
			if n := len(r.servers()); n != 2 {
				t.Errorf("server starts = %d, want 2", n)
			}
		})
	}
}

// A request that changes nothing, read by the server before it died, is
// sent again to the next run.
func TestAListInFlightIsSentAgain(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			r := start(t, nil)
			cs := r.client(nil, era)
			if _, err := call(t, cs, "stall-lists", map[string]any{}); err != nil {
				t.Fatal(err)
			}
			listed := make(chan error, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				res, err := cs.ListTools(ctx, nil)
				if err == nil && len(res.Tools) == 0 {
					err = fmt.Errorf("no tools")
				}
				listed <- err
			}()
			waitFor(t, "the server to hold the list request", func() bool {
				return strings.Contains(r.stderr.String(), "holding a tools/list")
			})
			r.kill()
			if err := <-listed; err != nil {
				t.Errorf("tools/list read before the death: %v, want it answered by the next run", err)
			}
		})
	}
}

// A call the server never read (it was stopped) is sent to the next run;
// the call it read, which may have changed something, gets an error.
func TestACallTheDeadRunNeverReadGoesToTheNext(t *testing.T) {
	r := start(t, nil)
	cs := r.client(nil, legacy)
	frozen := callAsync(t, cs, "freeze")
	pid := r.servers()[0]
	waitFor(t, "the server to stop", func() bool { return procState(pid) == 'T' })
	echoed := make(chan error, 1)
	go func() {
		got, err := call(t, cs, "echo", map[string]any{"text": "unread"})
		if err == nil && got != "unread" {
			err = fmt.Errorf("echo answered %q", got)
		}
		echoed <- err
	}()
	waitFor(t, "the echo call in the stopped server's pipe", func() bool { return unread(pid) > 0 })
	r.kill()
	if err := <-frozen; err == nil || !strings.Contains(err.Error(), "may or may not have run") {
		t.Errorf("the frozen call: %v, want the death's error", err)
	}
	if err := <-echoed; err != nil {
		t.Errorf("a call the dead run never read: %v, want it sent to the next run", err)
	}
}

// After a restart the host hears nothing of the replayed initialize, and
// is told to list the tools again when the server declares listChanged;
// a server that comes back as another version is said.
func TestRestartReplaysTheSessionQuietly(t *testing.T) {
	vfile := t.TempDir() + "/version"
	writeFile(t, vfile, "1.0.0")
	r := start(t, []string{"-listchanged", "-version", "@" + vfile})
	changed := make(chan struct{}, 4)
	cs := r.client(&mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }}, legacy)
	if _, err := call(t, cs, "echo", map[string]any{"text": "a"}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, vfile, "1.1.0")
	r.kill()
	r.waitKind(proxywire.StdioRestarted)
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatalf("no tools/list_changed after the restart of a server that declares listChanged (stderr: %s)", r.stderr)
	}
	if got, err := call(t, cs, "count", map[string]any{}); err != nil || got != "1" {
		t.Fatalf("a call on the new run: %q, %v", got, err)
	}
	if c := r.waitKind(proxywire.StdioChanged); !strings.Contains(c.Detail, "stdioserver 1.1.0 (was stdioserver 1.0.0)") {
		t.Errorf("changed report: %q", c.Detail)
	}
}

func count(kinds []string, kind string) int {
	n := 0
	for _, k := range kinds {
		if k == kind {
			n++
		}
	}
	return n
}
