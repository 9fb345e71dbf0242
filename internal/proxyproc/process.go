package proxyproc

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/peer"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
	"github.com/mcpwatchdog/watchdog/internal/sockact"
	"github.com/mcpwatchdog/watchdog/internal/supervise"
	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

// Options is what a caller changes about the proxy process. Each field
// documents its zero value.
type Options struct {
	// Logger is the process's log. Zero: discarded.
	Logger *slog.Logger
	// ConfigFile is the config file to follow: when its bytes change to a
	// config that loads (Load), the proxies are served again with it (on
	// the same sockets). Zero: not followed.
	ConfigFile string
	// Load makes a config of the config file's bytes (nil: the file is
	// gone) as the daemon does. Zero: config.Parse, and a gone file keeps
	// the running config.
	Load func(ctx context.Context, data []byte, readErr error) (config.Config, error)
	// Sockets are the listening sockets a supervisor (or the daemon that
	// started it) passed the process (sockact.Take); each proxy is served
	// on the one of its address. Run closes them when it returns. Zero:
	// none were passed.
	Sockets sockact.Set
	// Owned: the daemon started it (Spawn; OwnedEnv says so when false):
	// with no proxy in its config it ends, there being nothing to serve.
	Owned bool
}

// SocketPath is where the proxy process of stateDir tells its daemon
// what its proxies see.
func SocketPath(stateDir string) string { return filepath.Join(stateDir, proxywire.SocketName) }

// Run is the proxy process (`watchdog proxy`): it serves the
// session-keeping proxy of every server of cfg that names a proxy_listen,
// exactly as the daemon serves them itself, and outlives the daemon: a
// host's call in flight when the daemon dies goes on. What the proxies
// see goes to the daemon over SocketPath (proxywire), kept for it while
// none is linked (hub). It runs until ctx ends.
func Run(ctx context.Context, cfg config.Config, stateDir string, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if err := fsutil.PrivateDir(stateDir); err != nil {
		return err
	}
	if os.Getenv(OwnedEnv) != "" {
		opts.Owned = true
		_ = os.Unsetenv(OwnedEnv)
	}
	socks := NewSockets(opts.Sockets)
	defer socks.Close()
	ln, err := control.Listen(SocketPath(stateDir))
	if err != nil {
		return fmt.Errorf("the proxy process's socket: %w", err)
	}
	ctx, end := context.WithCancel(ctx)
	defer end()
	hub := newHub(opts.Logger, socks, func(string) { end() })
	var wg sync.WaitGroup
	defer wg.Wait()
	hctx, stopHub := context.WithCancel(ctx)
	defer stopHub()
	wg.Go(func() { hub.accept(hctx, peer.Own(ln, nil)) })
	wg.Go(func() { hub.tell(hctx) })
	wg.Go(func() { watchHome(hctx, stateDir, opts.Logger, end) })
	for {
		if opts.Owned && len(cfg.ProxyListens()) == 0 {
			opts.Logger.Info("no proxy to serve in the config, and the daemon started this process: ending")
			return nil
		}
		next, err := serveRun(ctx, cfg, stateDir, opts, socks, hub)
		if err != nil || next == nil || ctx.Err() != nil {
			return err
		}
		opts.Logger.Info("taking the changed config", "path", opts.ConfigFile)
		cfg = *next
	}
}

// serveRun serves cfg's proxies until ctx ends or the config file changes
// to one that loads, which it returns.
func serveRun(ctx context.Context, cfg config.Config, stateDir string, opts Options, socks *Sockets, hub *hub) (*config.Config, error) {
	secret, err := LoadSecret(cfg, stateDir)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	log := opts.Logger
	set := NewSet(secret)
	hub.use(set, cfg)
	ps := &Serving{Config: cfg, StateDir: stateDir, Log: log, Sockets: socks, Proxies: set, Out: hub}
	ps.StartAll(ctx, &wg)
	var next *config.Config
	if opts.ConfigFile != "" {
		src := dirwatch.NewFile("config file", opts.ConfigFile, nil, func(ctx context.Context, data []byte, err error) loaded {
			cfg, err := opts.load(ctx, data, err)
			return loaded{cfg, err}
		})
		ps.start(ctx, &wg, supervise.Taken[loaded, none](src, func(l loaded) {
			if l.err != nil {
				log.Warn("the config file changed but does not load; the proxies keep the running config", "err", l.err)
				return
			}
			next = &l.cfg
			cancel()
		}))
	}
	<-ctx.Done()
	wg.Wait()
	return next, nil
}

// loaded is the config file's new bytes as Load made them.
type loaded struct {
	cfg config.Config
	err error
}

func (o Options) load(ctx context.Context, data []byte, readErr error) (config.Config, error) {
	if o.Load != nil {
		return o.Load(ctx, data, readErr)
	}
	if readErr != nil {
		return config.Config{}, readErr
	}
	if data == nil {
		return config.Config{}, fmt.Errorf("%s is gone", o.ConfigFile)
	}
	return config.Parse(o.ConfigFile, data)
}

// homeEvery is how often the proxy process looks that its state directory
// still holds its socket: one whose directory was removed (a test's, an
// uninstall's) ends within it, instead of holding its ports for nobody.
const homeEvery = 10 * time.Second

// watchHome ends the process (end) once its socket in stateDir is gone
// or another's, until ctx ends.
func watchHome(ctx context.Context, stateDir string, log *slog.Logger, end func()) {
	path := SocketPath(stateDir)
	mine, err := os.Stat(path)
	if err != nil {
		log.Warn("cannot look at the proxy process's own socket", "path", path, "err", err)
		return
	}
	t := time.NewTicker(homeEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if now, err := os.Stat(path); err != nil || !os.SameFile(mine, now) {
			log.Warn("the proxy process's socket is gone from its state directory (removed, or another's): ending", "path", path)
			end()
			return
		}
	}
}
