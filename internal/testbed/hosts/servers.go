package hosts

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/demoserver/truth"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

// ServerKind is one of the real servers a host is measured against.
type ServerKind string

const (
	// GoSDK is the official Go SDK's Streamable HTTP handler
	// (internal/demoserver): an unknown session gets 404.
	GoSDK ServerKind = "Go SDK"
	// TSSDK is the official TypeScript SDK's stateful transport
	// (testdata/tsservers): an unknown session gets 404 -32001.
	TSSDK ServerKind = "TS SDK"
	// TSQuirk is the TypeScript SDK's older example routing: an unknown
	// session gets 400 "No valid session ID provided".
	TSQuirk ServerKind = "TS SDK, 400 quirk"
)

// ServerKinds are the servers of the host table, in its order.
func ServerKinds() []ServerKind { return []ServerKind{GoSDK, TSSDK, TSQuirk} }

// server is the running server of a rig: its URL, and a restart that
// loses every session (the server's own ground truth reports the ends).
type server struct {
	url     string
	restart func()
}

// startServer starts kind with idle (0: sessions never expire), its log
// and store at the rig's paths, reporting its events to the rig.
func (r *Rig) startServer(t *testing.T, kind ServerKind, idle time.Duration) server {
	t.Helper()
	if kind == GoSDK {
		srv, err := demoserver.Start(context.Background(), demoserver.Options{IdleTimeout: idle,
			StorePath: r.Store, LogPath: r.Log, OnEvent: r.onEvent})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		return server{url: srv.URL(), restart: srv.ForgetAll}
	}
	mode := tsserver.Stateful
	if kind == TSQuirk {
		mode = tsserver.Quirk
	}
	srv := tsserver.Start(t, tsserver.Options{Mode: mode, IdleTimeout: idle, LogPath: r.Log,
		StorePath: r.Store, OnEvent: r.onTSEvent})
	return server{url: srv.URL(), restart: func() { srv.Forget(t) }}
}

// onTSEvent reads a TypeScript server's event as the Go server's: the
// client comes from the session's start, the reasons map to the Go ones.
func (r *Rig) onTSEvent(e tsserver.Event) {
	reasons := map[string]demoserver.Reason{"idle": demoserver.ReasonIdleTimeout, "forgotten": demoserver.ReasonShutdown,
		"deleted": demoserver.ReasonDeleted, "closed": demoserver.ReasonClosed}
	ev := demoserver.Event{Kind: demoserver.EventKind(e.Kind), ID: e.ID, Client: e.Client,
		Reason: reasons[e.Reason], Text: e.Text, At: e.At}
	if e.Kind == truth.End {
		ev.Client = r.clientOf(e.ID)
	}
	r.onEvent(ev)
}

// clientOf is the client whose session id started, "" when none did.
func (r *Rig) clientOf(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e.Kind == demoserver.EventStart && e.ID == id {
			return e.Client
		}
	}
	return ""
}
