package repro

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// server is a running stateful MCP server whose sessions Run can watch
// and make it lose.
type server interface {
	URL() string
	// Live lists the ids of the live sessions.
	Live(ctx context.Context) ([]string, error)
	// Ended reports when the server ended session id, if it has.
	Ended(id string) (time.Time, bool)
	// Forget ends every session at once, as a restart would.
	Forget(ctx context.Context) error
	// Close stops the server.
	Close() error
	// Diagnostics is what the server said on stderr, for error messages.
	Diagnostics() string
}

// startServer starts the server o names. idle is its session idle
// timeout; zero means sessions never idle out.
func startServer(ctx context.Context, o Options, p paths, node, tmp string, idle time.Duration) (server, error) {
	if o.Server == TSSDK {
		return startTSServer(node, p.serverDir, idle)
	}
	opts := demoserver.Options{IdleTimeout: idle}
	if o.Watchdog != nil {
		opts.StorePath = storePath(tmp)
		if err := os.MkdirAll(filepath.Dir(opts.StorePath), 0o700); err != nil {
			return nil, fmt.Errorf("repro: %w", err)
		}
	}
	s, err := demoserver.Start(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("repro: Go SDK server: %w", err)
	}
	return goServer{s}, nil
}

// goServer adapts demoserver.Server.
type goServer struct{ s *demoserver.Server }

func (g goServer) URL() string { return g.s.URL() }

func (g goServer) Live(context.Context) ([]string, error) { return g.s.SessionIDs(), nil }

func (g goServer) Ended(id string) (time.Time, bool) {
	for _, e := range g.s.Ended() {
		if e.ID == id {
			return e.Ended, true
		}
	}
	return time.Time{}, false
}

func (g goServer) Forget(context.Context) error { g.s.ForgetAll(); return nil }

func (g goServer) Close() error { return g.s.Close() }

func (g goServer) Diagnostics() string { return "" }

// waitEnded polls until s ended id and returns when it did.
func waitEnded(ctx context.Context, s server, id string) (time.Time, error) {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		if at, ok := s.Ended(id); ok {
			return at, nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("repro: waiting for the server to end the session: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// onlySession returns the one live session; the host is the only client.
func onlySession(ctx context.Context, s server, except string) (string, error) {
	ids, err := s.Live(ctx)
	if err != nil {
		return "", err
	}
	ids = slices.DeleteFunc(ids, func(id string) bool { return id == except })
	if len(ids) != 1 {
		return "", fmt.Errorf("repro: the server has %d live sessions besides the lost one, want 1", len(ids))
	}
	return ids[0], nil
}
