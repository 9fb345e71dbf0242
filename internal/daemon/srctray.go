package daemon

import (
	"context"
	"time"

	"github.com/mcpwatchdog/watchdog/tray"
)

// commandSource is the source of what the user asks from the faces: the
// tray's clicks and the notifications' buttons, each handed to the loop
// as a commandIn, which does what `watchdog heal` and the command line
// would. Without a tray, clicks is nil (never ready).
type commandSource struct {
	clicks  <-chan tray.Command
	buttons <-chan tray.Command
}

// commandIn is one command from a face.
type commandIn struct{ cmd tray.Command }

// commandSource is the daemon's: the tray's clicks when it has one, the
// buttons pressed on its notifications.
func (d *daemon) commandSource() *commandSource {
	s := &commandSource{buttons: d.face.buttons}
	if d.opts.Tray != nil {
		s.clicks = d.opts.Tray.Commands()
	}
	return s
}

func (*commandSource) Name() string { return "tray and notification buttons" }

func (s *commandSource) Run(ctx context.Context, emit emitFunc) error {
	for {
		var cmd tray.Command
		select {
		case <-ctx.Done():
			return nil
		case c, ok := <-s.clicks:
			if !ok {
				s.clicks = nil // a tray gone: the buttons may still come
				continue
			}
			cmd = c
		case cmd = <-s.buttons:
		}
		if !emit(commandIn{cmd}) {
			return nil
		}
	}
}

func (in commandIn) handleIn(ctx context.Context, d *daemon) { d.command(ctx, in.cmd) }

// refreshSource is the tray's clock: its idle and expiry lines move with
// time alone, so between events it asks the loop for a fresh view every
// faceEvery (the view is the models', built on the loop).
type refreshSource struct{ every time.Duration }

// refreshIn asks for a fresh view for the tray.
type refreshIn struct{}

func (*refreshSource) Name() string { return "tray refresh" }

func (s *refreshSource) Run(ctx context.Context, emit emitFunc) error {
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if !emit(refreshIn{}) {
				return nil
			}
		}
	}
}

func (refreshIn) handleIn(_ context.Context, d *daemon) { d.refreshFace() }
