package daemon_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

func TestKeepWarmHoldsAnIdleSession(t *testing.T) {
	t.Parallel()
	srv, cfg, state := daemontest.KeepWarmSetup(t, true, "")
	startDaemon(t, cfg, state)
	ctx := context.Background()
	cs, err := demoserver.Connect(ctx, srv.URL(), daemontest.HostClient())
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	time.Sleep(12 * time.Second) // four idle timeouts, with no call of the client's own
	if _, err := cs.CallTool(ctx, toolCall("echo")); err != nil {
		t.Fatalf("the call after 12 s idle failed although kept warm: %v", err)
	}
	if n := len(daemontest.Journal(t, state, "keep_warm")); n < 4 {
		t.Fatalf("%d keep_warm events over 12 s of a 3 s timeout, want at least 4", n)
	}
	if evs := daemontest.Journal(t, state, "session_expired", "session_lost", "keep_warm_failed"); len(evs) != 0 {
		t.Fatalf("a kept-warm session was lost: %v", evs)
	}
	for _, e := range srv.Ended() {
		if e.ID == cs.ID() {
			t.Fatalf("the server ended the kept-warm session: %+v", e)
		}
	}
}

func TestWithoutKeepWarmTheLossIsJournaledWithinASecond(t *testing.T) {
	t.Parallel()
	srv, cfg, state := daemontest.KeepWarmSetup(t, false, "")
	startDaemon(t, cfg, state)
	ctx := context.Background()
	cs, err := demoserver.Connect(ctx, srv.URL(), daemontest.HostClient())
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	time.Sleep(12 * time.Second)
	_, callErr := cs.CallTool(ctx, toolCall("echo"))
	if callErr == nil {
		t.Fatal("the call after 12 s idle succeeded without keep-warm: the server did not expire the session")
	}
	var ended time.Time
	for _, e := range srv.Ended() {
		if e.ID == cs.ID() {
			ended = e.Ended
		}
	}
	if ended.IsZero() {
		t.Fatalf("the server has no record of ending the session (call error: %v)", callErr)
	}
	lost := daemontest.WaitEvent(t, state, "session_lost", 1, 5*time.Second)
	if lag := lost.Time(t).Sub(ended); lag > time.Second || lag < 0 {
		t.Fatalf("session_lost %s after the server ended the session, want within 1 s", lag)
	}
	if n := len(daemontest.Journal(t, state, "keep_warm")); n != 0 {
		t.Fatalf("%d keep_warm events with keep_warm = false", n)
	}
}

func TestSessionOfAnExitedHostIsNotKeptWarm(t *testing.T) {
	t.Parallel()
	token := standInToken(t)
	host := startStandInHost(t, token)
	srv, cfg, state := daemontest.KeepWarmSetup(t, true, token)
	startDaemon(t, cfg, state)
	up := daemontest.WaitEvent(t, state, "host_up", 1, 15*time.Second)
	if !strings.Contains(fmt.Sprint(up["pid"]), fmt.Sprint(host.Process.Pid)) {
		t.Fatalf("host_up names pid %v, want the stand-in's %d", up["pid"], host.Process.Pid)
	}
	ctx := context.Background()
	cs, err := demoserver.Connect(ctx, srv.URL(), daemontest.HostClient())
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	daemontest.WaitEvent(t, state, "keep_warm", 1, 10*time.Second)

	if err := host.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_, _ = host.Process.Wait()
	down := daemontest.WaitEvent(t, state, "host_down", 1, 20*time.Second)
	expired := daemontest.WaitEvent(t, state, "session_expired", 1, 20*time.Second)
	for _, ev := range daemontest.Journal(t, state, "keep_warm") {
		if ev.Time(t).After(down.Time(t).Add(100 * time.Millisecond)) {
			t.Fatalf("kept warm after the host exited: %v", ev)
		}
	}
	if evs := daemontest.Journal(t, state, "session_lost"); len(evs) != 0 {
		t.Fatalf("the session of an exited host was reported lost, a false alarm: %v", evs)
	}
	if expired.Str("session") != daemontest.MaskedID(cs.ID()) {
		t.Fatalf("expired %q, want the host's session", expired.Str("session"))
	}
}
