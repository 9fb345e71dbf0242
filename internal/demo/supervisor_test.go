package demo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
)

// A call that meets a lost session fails; the next one reconnects and
// succeeds, as the patched client does.
func TestCallAfterLossFailsThenNextReconnects(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t, time.Second)
	ctx := testCtx(t)
	sup := NewSupervisor(SupervisorOptions{URL: srv.URL(), ClientName: clientName(), Server: ServerName})
	defer sup.Close()
	if err := sup.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	first := sup.SessionID()
	waitUntil(t, "the server to expire the idle session", func() bool { _, ok := endedOf(srv, first); return ok })
	if _, err := sup.Call(ctx, "lost?"); !errors.Is(err, ErrSessionLost) {
		t.Fatalf("call on the expired session: %v, want ErrSessionLost", err)
	}
	res, err := sup.Call(ctx, "again")
	if err != nil {
		t.Fatalf("the call after the failed one: %v", err)
	}
	if res.Session == first || res.Text != "again" {
		t.Fatalf("result %+v: want the echo on a new session", res)
	}
	rc := sup.Reconnects()
	if len(rc) < 2 || rc[len(rc)-1].Reason != "call" || sup.Failed() != 1 {
		t.Fatalf("reconnects %+v, failed %d: want a reconnect by the call and one failed call", rc, sup.Failed())
	}
}

// A trigger named after the server (or "all") replaces the session at
// once and is consumed; a trigger for another server is left alone; a
// session the server already forgot is not sent a DELETE.
func TestTriggerReplacesTheSession(t *testing.T) {
	t.Parallel()
	for _, name := range []string{ServerName, "all"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, logPath := startServer(t, 0)
			ctx := testCtx(t)
			home := t.TempDir()
			dir := filepath.Join(home, demoHost().Client.TriggerDir)
			sup := NewSupervisor(SupervisorOptions{URL: srv.URL(), ClientName: clientName(), Server: ServerName, TriggerDir: dir})
			defer sup.Close()
			var wg sync.WaitGroup
			defer wg.Wait()
			wctx, stop := context.WithCancel(ctx)
			defer stop()
			wg.Go(func() {
				if err := sup.Watch(wctx); err != nil {
					t.Errorf("Watch: %v", err)
				}
			})
			if err := sup.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			first := sup.SessionID()
			srv.ForgetAll()
			if err := healer.WriteTrigger(dir, "other-server", time.Now()); err != nil {
				t.Fatal(err)
			}
			if err := healer.WriteTrigger(dir, name, time.Now()); err != nil {
				t.Fatal(err)
			}
			waitUntil(t, "the trigger's reconnect", func() bool { id := sup.SessionID(); return id != "" && id != first })
			rc := sup.Reconnects()
			if len(rc) != 2 || rc[1].Reason != "trigger" {
				t.Fatalf("reconnects %+v: want the start and one by the trigger", rc)
			}
			if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
				t.Errorf("trigger %s still there (err %v): it must be consumed", name, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "other-server")); err != nil {
				t.Errorf("another server's trigger was touched: %v", err)
			}
			if res, err := sup.Call(ctx, "hi"); err != nil || res.Session != sup.SessionID() {
				t.Fatalf("call after recovery: %+v, %v", res, err)
			}
			if log := readFile(t, logPath); strings.Contains(log, "Session not found") {
				t.Errorf("the forgotten session got a request (a DELETE?):\n%s", log)
			}
		})
	}
}

// Close ends a live session with DELETE.
func TestCloseDeletesALiveSession(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t, 0)
	sup := NewSupervisor(SupervisorOptions{URL: srv.URL(), ClientName: clientName(), Server: ServerName})
	if err := sup.Connect(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	id := sup.SessionID()
	sup.Close()
	sup.Close() // twice is fine
	waitUntil(t, "the server to see the DELETE", func() bool { e, ok := endedOf(srv, id); return ok && e.Reason == "deleted" })
	if sup.SessionID() != "" {
		t.Fatal("a closed supervisor still reports a session")
	}
}
