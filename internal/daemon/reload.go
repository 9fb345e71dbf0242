package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

// configSettle is how long the config file must be quiet before it is read:
// an editor's save, or adopt's rename, comes as a few events.
const configSettle = 200 * time.Millisecond

// reload is a changed config file as the watcher read it: the config it
// loads to, or why it does not load.
type reload struct {
	cfg config.Config
	err error
}

// configSource follows the config file (Options.ConfigFile) and hands
// the loop each change of its bytes; none without one.
func (d *daemon) configSource() []source {
	path := d.opts.ConfigFile
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		d.log.Warn("not watching the config file", "path", path, "err", err)
		return nil
	}
	return []source{newFileSource("config file", path, d.src.dirs, func(ctx context.Context, data []byte, err error) item {
		return reloadIn{d.loadChanged(ctx, path, data, err)}
	})}
}

// fileSource watches path through the shared directory watch and, once
// it has been quiet for configSettle after a change of its bytes, hands
// the loop what changed makes of them (nil data: the file is gone). The
// bytes it compares with are read when it is made: a change while the
// daemon starts is not missed.
type fileSource struct {
	label   string
	path    string
	hub     *dirwatch.Hub
	changed func(context.Context, []byte, error) item
	initial item // handed over once the watch is set, on every run
	last    []byte
}

func newFileSource(label, path string, hub *dirwatch.Hub, changed func(context.Context, []byte, error) item) *fileSource {
	last, _ := readConfigBytes(path)
	return &fileSource{label: label, path: path, hub: hub, changed: changed, last: last}
}

func (s *fileSource) name() string { return s.label }

func (s *fileSource) run(ctx context.Context, emit emitFunc) error {
	w, err := dirwatch.Open(ctx, s.hub)
	if err == nil {
		defer w.Close()
		err = w.Add(filepath.Dir(s.path))
	}
	if err != nil {
		return fmt.Errorf("watching %s: %w", s.path, err)
	}
	if s.initial != nil && !emit(s.initial) {
		return nil
	}
	var settle <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("the directory watch closed")
			}
			if filepath.Clean(ev.Name) == filepath.Clean(s.path) {
				settle = time.After(configSettle)
			}
		case <-w.Errors:
			settle = time.After(configSettle) // an overflow: look again
		case <-settle:
			settle = nil
			data, err := readConfigBytes(s.path)
			if bytes.Equal(data, s.last) && err == nil {
				continue
			}
			s.last = data
			if !emit(s.changed(ctx, data, err)) {
				return nil
			}
		}
	}
}

func readConfigBytes(path string) ([]byte, error) {
	b, err := fsutil.ReadRegular(path, 64<<10)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // gone: the built-in defaults, as at start
	}
	return b, err
}

// loadChanged loads the config the file now holds (nil data: no file,
// which means the machine as found).
func (d *daemon) loadChanged(ctx context.Context, path string, data []byte, readErr error) reload {
	if readErr != nil {
		return reload{err: readErr}
	}
	if data == nil {
		cfg, err := MachineConfig(ctx, d.stateDir, d.findOptions())
		return reload{cfg: cfg, err: err}
	}
	cfg, err := config.Parse(path, data)
	return reload{cfg: cfg, err: err}
}

// takeReload acts on a changed config: one that loads ends this run of the
// daemon so that Serve starts the next with it (what a restart keeps, it
// keeps: tracked sessions, open incidents, log positions); one that does
// not load is journaled, and the running config stays.
func (d *daemon) takeReload(r reload) {
	if r.err != nil {
		d.emit([]health.Event{{Time: d.now(), Kind: health.EvWarning,
			Detail: "the config file changed but does not load, so the running config stays: " + r.err.Error()}})
		return
	}
	d.run.next = &r.cfg
	if d.run.cancel != nil {
		d.run.cancel()
	}
}
