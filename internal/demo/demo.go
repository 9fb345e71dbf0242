package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
)

// ServerName names the demo's server.
const ServerName = "nowledge-mem-demo"

// The demo's host and client are named after the default host's profile,
// so that the watchdog takes them for the real ones: the client's sessions
// are the host's, and recovery triggers go where that host's client looks.
func demoHost() host.Profile { return host.Default() }
func hostName() string       { return demoHost().Name + " (demo)" }
func clientName() string     { return demoHost().ClientName }

// Idle timeouts of the demo server. Fast stays at 3 s rather than 2 s so
// keep-warm pings (every half timeout) keep a margin on a loaded machine.
const (
	IdleNormal = 15 * time.Second
	IdleFast   = 3 * time.Second
)

// Options configure Run.
type Options struct {
	Out     io.Writer // the narration; nil discards
	Fast    bool      // the short run (IdleFast)
	Version string    // the watchdog's version, as its started event says
	Logger  *slog.Logger
	// Keep leaves the temp directory behind (it is kept anyway when an act fails).
	Keep bool
}

// Act is what one act showed.
type Act struct {
	N        int
	Title    string
	OK       bool
	Evidence string // what was measured
	Failure  string // why it failed
}

// Result is the whole run.
type Result struct {
	Acts []Act
	Dir  string // the temp directory (removed unless kept)
	Took time.Duration
}

// OK reports whether every act did what it narrates.
func (r Result) OK() bool {
	for _, a := range r.Acts {
		if !a.OK {
			return false
		}
	}
	return len(r.Acts) == actCount
}

// actCount is how many acts a whole demo plays.
const actCount = 5

// stage is the demo's world: the server, the client, the daemon.
type stage struct {
	o       Options
	idle    time.Duration
	dir     string
	state   string
	home    string
	srv     *demoserver.Server
	sup     *Supervisor
	tail    *Tail
	n       *narrator
	stopDmn func() error
	// proxyListen, from act 4 on, is where the watchdog proxies the server,
	// and proxyURL the URL a host is given.
	proxyListen, proxyURL string
	bg                    sync.WaitGroup // the journal reader and the trigger watch
	stopBg                context.CancelFunc

	mu    sync.Mutex
	notes []note // notifications the daemon sent
}

// note is one notification the daemon sent.
type note struct {
	at          time.Time
	title, body string
}

// Run stages the demo, plays the five acts and prints the summary. The
// error is for a stage that could not be set up; failed acts are in Result.
func Run(ctx context.Context, o Options) (Result, error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &stage{o: o, idle: IdleNormal}
	if o.Fast {
		s.idle = IdleFast
	}
	start := time.Now()
	s.n = &narrator{out: o.Out, start: start}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := s.setup(ctx); err != nil {
		s.teardown(false)
		return Result{Dir: s.dir}, err
	}
	res := Result{Dir: s.dir}
	for i, p := range s.plays() {
		a := Act{N: i + 1, Title: p.title}
		if ctx.Err() != nil {
			res.Acts = append(res.Acts, fail(a, "not played: interrupted"))
			continue
		}
		res.Acts = append(res.Acts, p.play(ctx, a))
	}
	s.teardown(res.OK() && !o.Keep)
	res.Took = time.Since(start)
	s.summary(res)
	return res, nil
}

type play struct {
	title string
	play  func(context.Context, Act) Act
}

// plays are the acts, in order.
func (s *stage) plays() []play {
	return []play{
		{"keep-warm holds an idle session", s.act1},
		{"keep-warm paused: expiry healed", s.act2},
		{"server restart: lost session healed", s.act3},
		{"unpatched client through the proxy", s.act4},
		{"legacy client, server now modern-only", s.act5},
	}
}

// setup makes the temp world and starts the server, the journal reader,
// the client's trigger watch and the daemon.
func (s *stage) setup(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "watchdog-demo-")
	if err != nil {
		return fmt.Errorf("demo: temp dir: %w", err)
	}
	s.dir, s.state, s.home = dir, filepath.Join(dir, "state"), filepath.Join(dir, "home")
	srvDir := filepath.Join(dir, "server")
	for _, d := range []string{s.state, s.home, srvDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	s.srv, err = demoserver.Start(ctx, demoserver.Options{IdleTimeout: s.idle,
		StorePath: filepath.Join(srvDir, "mcp-sessions.json"), LogPath: filepath.Join(srvDir, "server.log"),
		Logger: s.o.Logger})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	s.n.ids = s.allIDs
	s.n.plain("watchdog demo: a real MCP server, a client named like %s's and the real watchdog, all on loopback", hostName())
	s.n.plain("  server  %s (Go SDK, stateful, idle timeout %s, session store and log under %s)", s.srv.URL(), s.idle, srvDir)
	s.n.plain("  client  %s with a reconnect supervisor that answers the watchdog's recovery trigger", clientName())
	s.n.plain("  journal %s", filepath.Join(s.state, "events.jsonl"))
	s.tail = NewTail(filepath.Join(s.state, "events.jsonl"), s.n.journal)
	s.sup = NewSupervisor(SupervisorOptions{URL: s.srv.URL(), ClientName: clientName(), Server: ServerName,
		TriggerDir: filepath.Join(s.home, demoHost().Client.TriggerDir), Logger: s.o.Logger})
	bg, stop := context.WithCancel(ctx)
	s.stopBg = stop
	s.bg.Go(func() { s.tail.Run(bg) })
	s.bg.Go(func() {
		if err := s.sup.Watch(bg); err != nil {
			s.n.say("client: cannot watch for recovery triggers: %v", err)
		}
	})
	return s.startDaemon(ctx, true)
}

// config is the daemon's view of the stage. No host process is named, so
// the host counts as running; no restart command, so healing is the
// client's own.
func (s *stage) config(keepWarm bool) config.Config {
	dir := filepath.Join(s.dir, "server")
	return config.Config{
		StateDir: s.state,
		Notify:   true,
		Hosts:    []config.Host{{Name: hostName(), ClientName: clientName()}},
		Servers: []config.Server{{Name: ServerName, URL: s.srv.URL(),
			Logs: []string{filepath.Join(dir, "server.log")}, Store: filepath.Join(dir, "mcp-sessions.json"),
			IdleTimeout: config.Duration{Duration: s.idle}, KeepWarm: keepWarm, ProxyListen: s.proxyListen}},
	}
}

// startDaemon runs the watchdog and waits until it watches.
func (s *stage) startDaemon(ctx context.Context, keepWarm bool) error {
	cfg := s.config(keepWarm)
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("demo: config: %w", err)
	}
	_ = os.Remove(control.SocketPath(s.state))
	from := s.tail.Len()
	dctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	// The demo's client is the Go supervisor, which answers the recovery
	// trigger: say so instead of inspecting a JS client module, and keep
	// its triggers and notifications inside the demo.
	trigger := healer.PatchTrigger
	opts := daemon.Options{Version: s.o.Version, Logger: s.o.Logger, Patch: &trigger, Home: s.home, Send: s.notify}
	go func() { errc <- daemon.Serve(dctx, cfg, s.state, opts) }()
	s.stopDmn = func() error { cancel(); return <-errc }
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	for {
		// The daemon opens its control socket once its logs are positioned,
		// so its presence says the watchdog is watching.
		if _, err := os.Stat(control.SocketPath(s.state)); err == nil {
			_, err := s.tail.Wait(wctx, from, "the watchdog's started event", func(r Record) bool { return r.Kind == health.EvStarted })
			return err
		}
		select {
		case err := <-errc:
			cancel()
			s.stopDmn = nil
			return fmt.Errorf("demo: the watchdog stopped at once: %w", err)
		case <-wctx.Done():
			if ctx.Err() != nil {
				return fmt.Errorf("demo: interrupted: %w", ctx.Err())
			}
			return errors.New("demo: the watchdog did not start within 30 s")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (s *stage) stopDaemon() error {
	if s.stopDmn == nil {
		return nil
	}
	err := s.stopDmn()
	s.stopDmn = nil
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// teardown stops everything; the temp dir goes only when remove is set.
func (s *stage) teardown(remove bool) {
	if err := s.stopDaemon(); err != nil {
		s.n.say("watchdog stopped with an error: %v", err)
	}
	if s.stopBg != nil {
		s.stopBg()
		s.bg.Wait()
	}
	if s.sup != nil {
		s.sup.Close()
	}
	if s.srv != nil {
		_ = s.srv.Close()
	}
	if remove && s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

// notify prints a notification where the desktop would show it.
func (s *stage) notify(title, body string) error {
	s.mu.Lock()
	s.notes = append(s.notes, note{at: time.Now(), title: title, body: body})
	s.mu.Unlock()
	s.n.say("  notification:      %s — %s", title, body)
	return nil
}

// notesSince counts the notifications from index from on whose title
// contains what.
func (s *stage) notesSince(from int, what string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, m := range s.notes[min(from, len(s.notes)):] {
		if strings.Contains(m.title, what) {
			n++
		}
	}
	return n
}

func (s *stage) noteCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.notes)
}

// allIDs lists every session id the server issued, for masking output.
func (s *stage) allIDs() []string {
	s.mu.Lock()
	srv := s.srv
	s.mu.Unlock()
	ids := srv.SessionIDs()
	for _, e := range srv.Ended() {
		ids = append(ids, e.ID)
	}
	return ids
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
