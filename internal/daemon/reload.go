package daemon

import (
	"context"
	"os"
	"path/filepath"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

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
	return []source{dirwatch.NewFile("config file", path, d.src.dirs, func(ctx context.Context, data []byte, err error) item {
		return reloadIn{d.loadChanged(ctx, path, data, err)}
	})}
}

// loadChanged loads the config the file now holds.
func (d *daemon) loadChanged(ctx context.Context, path string, data []byte, readErr error) reload {
	cfg, err := ConfigLoader(d.stateDir, path, d.findOptions())(ctx, data, readErr)
	return reload{cfg: cfg, err: err}
}

// ConfigLoader makes the config of the bytes of the config file at path as
// the daemon (and the proxy process) takes a change of the file: nil
// data, no file, means the machine as found (MachineConfig, o).
func ConfigLoader(stateDir, path string, o find.Options) func(context.Context, []byte, error) (config.Config, error) {
	return func(ctx context.Context, data []byte, readErr error) (config.Config, error) {
		if readErr != nil {
			return config.Config{}, readErr
		}
		if data == nil {
			return MachineConfig(ctx, stateDir, o)
		}
		return config.Parse(path, data)
	}
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
