package hosts

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/testbed/demoserver"
)

func TestExploreDSH(t *testing.T) {
	root, err := fsutil.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	in, err := FindDSH(root)
	if err != nil {
		t.Fatal(err)
	}
	ends := make(chan demoserver.Event, 16)
	srv, err := demoserver.Start(context.Background(), demoserver.Options{IdleTimeout: 2 * time.Second, OnEvent: func(e demoserver.Event) {
		t.Logf("server event %s %s %s", e.Kind, e.Client, e.Reason)
		if e.Kind == demoserver.EventEnd {
			ends <- e
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	m, err := StartModelAPI()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	d, err := StartDSH(in, DSHOptions{Home: t.TempDir(), Workdir: t.TempDir(), ServerURL: srv.URL(), ModelURL: m.URL(), Task: "echo things"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { d.Stop(); t.Logf("dsh output:\n%s", d.Output()) }()
	call := func(text string) {
		if err := m.Say(Turn{Tool: DSHTool("echo"), Args: `{"text":"` + text + `"}`}, 60*time.Second); err != nil {
			t.Fatal(err)
		}
		r, err := m.Result(60 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("result %s: %q", r.CallID, r.Content)
	}
	call("one")
	t.Logf("tools: %v", m.Tools())
	select {
	case e := <-ends:
		t.Logf("ended: %v", e.Reason)
	case <-time.After(30 * time.Second):
		t.Fatal("no end")
	}
	call("two")
	call("three")
	time.Sleep(3 * time.Second)
	call("four")
	if err := m.Say(Turn{Text: "done"}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("exit: %v", d.Wait(30*time.Second))
}
