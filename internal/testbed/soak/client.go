package soak

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// legacyVersion is the protocol the soak's clients speak: sessions exist.
const legacyVersion = "2025-06-18"

// ClientServer is one server a soak client keeps a session with.
type ClientServer struct {
	Name string
	URL  string
	// MaxGap is the longest pause between two calls: above the server's
	// idle timeout, so some sessions sit idle long enough to expire unless
	// kept warm.
	MaxGap time.Duration
}

// ClientConfig configures RunClient.
type ClientConfig struct {
	Name    string // clientInfo.name
	Servers []ClientServer
	// TriggerDir, when set, is watched like the patched dsh-mcp-client
	// watches its recovery triggers: a file named after a server (or
	// "all") makes the client drop that session and open a new one.
	TriggerDir string
	// BeaconDir, when set, is where the client writes its beacon like the
	// patched dsh-mcp-client: <pid>.json naming per server the session it
	// holds and its state, rewritten on every change, removed at a clean
	// exit. Empty: no beacon (a client the watchdog can only infer).
	BeaconDir string
	// Unpatched makes a client like most hosts today: it opens its session
	// once and keeps it whatever the server answers, and writes each call
	// as a CallRecord (one JSON line) to stdout. Its servers' URLs are the
	// watchdog's proxies, which must keep every call working.
	Unpatched bool
	Seed      uint64
}

// RunClient is a soak client process: one session per server, a tool call
// after a random pause, a new session at once when the server no longer
// knows the old one (404 or the quirk's 400), as a patched client does.
// It runs until ctx ends; a kill -9 is how the soak usually ends it.
func RunClient(ctx context.Context, cfg ClientConfig) error {
	b, err := newBeacon(cfg.BeaconDir, cfg.Servers)
	if err != nil {
		return fmt.Errorf("soak client beacon: %w", err)
	}
	triggers := map[string]chan struct{}{}
	var calls *callLog
	if cfg.Unpatched {
		calls = &callLog{w: os.Stdout}
	}
	var wg sync.WaitGroup
	for i, s := range cfg.Servers {
		c, err := mcphttp.New(mcphttp.Options{URL: s.URL, Timeout: callTimeout(cfg)})
		if err != nil {
			return fmt.Errorf("soak client %s: %w", s.Name, err)
		}
		trig := make(chan struct{}, 1)
		triggers[s.Name] = trig
		sc := &sessionKeeper{c: c, cfg: cfg, srv: s, trigger: trig, beacon: b, calls: calls,
			r: rand.New(rand.NewPCG(cfg.Seed, uint64(i)+uint64(os.Getpid())))}
		wg.Add(1)
		go func() { defer wg.Done(); sc.run(ctx) }()
	}
	if cfg.TriggerDir != "" {
		wg.Add(1)
		go func() { defer wg.Done(); watchTriggers(ctx, cfg.TriggerDir, triggers) }()
	}
	wg.Wait()
	return b.remove()
}

type sessionKeeper struct {
	c       *mcphttp.Client
	cfg     ClientConfig
	srv     ClientServer
	trigger chan struct{}
	beacon  *beacon  // nil: none
	calls   *callLog // Unpatched: where its calls are written
	r       *rand.Rand
	id      string
	n       int // calls made

	connMu sync.Mutex
	conns  map[string]time.Time // when each connection it used was opened, by local address
}

func (k *sessionKeeper) run(ctx context.Context) {
	for ctx.Err() == nil {
		if k.id == "" && !k.open(ctx) {
			sleep(ctx, 200*time.Millisecond)
			continue
		}
		pause := time.Duration(k.r.Int64N(int64(k.srv.MaxGap-100*time.Millisecond))) + 100*time.Millisecond
		select {
		case <-ctx.Done():
			return
		case <-k.trigger:
			// The patched client takes the generation down after its backoff.
			sleep(ctx, time.Duration(200+k.r.IntN(800))*time.Millisecond)
			k.drop()
			continue
		case <-time.After(pause):
		}
		k.call(ctx)
	}
}

// open starts a session: initialize, then the initialized notification.
func (k *sessionKeeper) open(ctx context.Context) bool {
	resp, err := k.c.Do(ctx, mcphttp.Request{Method: "initialize", Params: map[string]any{
		"protocolVersion": legacyVersion, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": k.cfg.Name, "version": "1.0.0"}}})
	if err != nil || resp.Status != http.StatusOK || resp.SessionID == "" {
		return false
	}
	if _, err := k.c.Do(ctx, mcphttp.Request{Method: "notifications/initialized", SessionID: resp.SessionID, ProtocolVersion: legacyVersion}); err != nil {
		return false
	}
	k.id = resp.SessionID
	k.beacon.connected(k.srv.Name, k.id)
	return true
}

// drop gives the session up; the next turn opens a new one.
func (k *sessionKeeper) drop() {
	k.id = ""
	k.beacon.dropped(k.srv.Name)
}

// call makes one tool call; a server that no longer knows the session gets
// a new one at once, a server that does not answer gets the same id later.
func (k *sessionKeeper) call(ctx context.Context) {
	if k.calls != nil {
		k.callThrough(ctx)
		return
	}
	k.beacon.requested(k.srv.Name)
	resp, err := k.c.Do(ctx, mcphttp.Request{Method: "tools/call", SessionID: k.id, ProtocolVersion: legacyVersion,
		Params: map[string]any{"name": "echo", "arguments": map[string]any{"text": "soak"}}})
	if err != nil {
		return
	}
	if resp.Status == http.StatusNotFound || resp.Status == http.StatusBadRequest {
		k.drop()
	}
}

// watchTriggers polls the trigger folder, as often as the patched client's
// watcher would notice a new file.
func watchTriggers(ctx context.Context, dir string, triggers map[string]chan struct{}) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") { // a trigger still being written
				continue
			}
			if os.Remove(filepath.Join(dir, name)) != nil {
				continue
			}
			for server, ch := range triggers {
				if name == server || name == "all" {
					select {
					case ch <- struct{}{}:
					default:
					}
				}
			}
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// callTimeout bounds one request of a client. The unpatched client calls
// through the proxies and waits as a host does (the Python SDK's default
// HTTP timeout is 30 s, the TypeScript SDK's request timeout 60 s): a
// call made while the daemon restarts waits in the socket its supervisor
// holds, for as long as the restart takes on a loaded machine. The others
// call the servers straight, and give up after 3 s.
func callTimeout(cfg ClientConfig) time.Duration {
	if cfg.Unpatched {
		return 30 * time.Second
	}
	return 3 * time.Second
}
