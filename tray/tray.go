package tray

import (
	"context"
	"io"
	"log/slog"
	"sync"

	"github.com/mcpwatchdog/watchdog/internal/sessionbus"
)

// Options configure a Tray.
type Options struct {
	Name   string       // shown as the item's title; default "MCP Watchdog"
	Logger *slog.Logger // nil: discard
}

// Tray is the menu-bar item. Update may be called from any goroutine;
// Run owns the tray's event loop.
type Tray struct {
	name  string
	log   *slog.Logger
	cmds  chan Command
	dirty chan struct{} // one pending rebuild at most

	mu   sync.Mutex
	view View
}

// New makes a Tray that shows nothing until Run.
func New(opts Options) *Tray {
	if opts.Name == "" {
		opts.Name = "MCP Watchdog"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Tray{name: opts.Name, log: opts.Logger, cmds: make(chan Command, 16), dirty: make(chan struct{}, 1)}
}

// Update replaces the view; the menu is rebuilt from it soon after.
func (t *Tray) Update(v View) {
	t.mu.Lock()
	t.view = v
	t.mu.Unlock()
	select {
	case t.dirty <- struct{}{}:
	default: // a rebuild is already pending and will read the newest view
	}
}

// Commands delivers clicks. It is never closed.
func (t *Tray) Commands() <-chan Command { return t.cmds }

func (t *Tray) current() View {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.view
}

// emit hands a click to the daemon without ever blocking the tray: a
// full queue means the daemon is stuck, and one more click would not help.
func (t *Tray) emit(ctx context.Context, c Command) {
	select {
	case t.cmds <- c:
	case <-ctx.Done():
	default:
		t.log.Warn("tray command dropped: queue full", "kind", c.Kind)
	}
}

// SessionBusAvailable reports whether a D-Bus session bus answers. Check
// it before Run on Linux: without a bus systray v1.12.2 panics on quit.
// It starts none (sessionbus).
func SessionBusAvailable() bool { return sessionbus.Available() }

// headless waits out ctx: the daemon runs on without a tray.
func (t *Tray) headless(ctx context.Context, why string) error {
	t.log.Warn("running without a tray", "reason", why)
	<-ctx.Done()
	return nil
}
