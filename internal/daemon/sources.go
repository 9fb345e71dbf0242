package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
	"github.com/mcpwatchdog/watchdog/monitor/follow"
	"github.com/mcpwatchdog/watchdog/monitor/proc"
	"github.com/mcpwatchdog/watchdog/monitor/store"
)

// hostTag tags the main host's log lines, and starts every other host's
// tag (hostTagOf); server logs are tagged with the server's name.
const hostTag = "\x00host"

// sources are the monitors' shared parts the loop and the stop use.
type sources struct {
	follower *follow.Follower
	dirs     *dirwatch.Hub // the directory watch the sources share; nil: each has its own
	// storesRead is closed once every configured store was read once.
	storesRead <-chan struct{}
}

// startSources starts every source under the supervisor, each in a
// goroutine owned by wg and stopped by ctx, feeding the loop: the hosts'
// process watchers first (startProc), then the rest (sourcesOf).
func (d *daemon) startSources(ctx context.Context, wg *sync.WaitGroup, resume []follow.Position) error {
	d.startDirWatch(ctx)
	stores := d.newStoreWatchers()
	f, err := d.newFollower(ctx, resume)
	if err != nil {
		return err
	}
	d.src.follower = f
	// First: the loop looks at time, and retries the journal, from its start.
	d.startSource(ctx, wg, d.timeSource())
	d.startSource(ctx, wg, d.retrySource())
	d.startProc(ctx, wg)
	srcs, storesRead := d.sourcesOf(f, stores)
	d.src.storesRead = storesRead
	for _, src := range append(srcs, d.opts.sources...) {
		d.startSource(ctx, wg, src)
	}
	return nil
}

// sourcesOf is the registry of the sources that start once the hosts'
// processes are known: a new source is one line here. storesRead is
// closed once every configured store was read once.
func (d *daemon) sourcesOf(f *follow.Follower, stores map[string]*store.Watcher) (srcs []source, storesRead <-chan struct{}) {
	srcs = append(srcs, &logSource{f: f, lines: &lineReader{d: d, stores: stores}})
	if dir := d.beaconDir(); dir != "" {
		srcs = append(srcs, &beaconSource{dir: dir, log: d.log, hub: d.src.dirs})
	}
	var firsts []chan struct{}
	for _, s := range d.cfg.Servers {
		src := &storeSource{server: s.Name, w: stores[s.Name], sp: proc.NewServer(s.URL, d.now), first: make(chan struct{})}
		if src.w.Path() != "" {
			firsts = append(firsts, src.first)
		}
		srcs = append(srcs, src)
	}
	if d.opts.Patch == nil && d.mainHost().prof.Patchable() {
		srcs = append(srcs, &patchSource{h: d.mainHost()})
	}
	srcs = append(srcs, &clockSource{clock: d.timing.clock, hub: d.src.dirs, log: d.log})
	srcs = append(srcs, d.configSource()...)
	srcs = append(srcs, &hostsSource{o: d.findOptions()}, d.adoptedSource())
	srcs = append(srcs, d.reports, d.commandSource())
	srcs = append(srcs, d.stdioSource())
	if d.opts.Tray != nil {
		srcs = append(srcs, &refreshSource{every: faceEvery})
	}
	return srcs, allClosed(firsts)
}

// startDirWatch starts the one directory watch that the follower, the
// stores and the beacons share. It outlives them: stop closes it after
// they have ended. Without it each starts its own, as run alone.
func (d *daemon) startDirWatch(ctx context.Context) {
	hub, err := dirwatch.Start(context.WithoutCancel(ctx))
	if err != nil {
		d.log.Warn("cannot start the shared directory watch; each source starts its own", "err", err)
		return
	}
	d.src.dirs = hub
}

// closeDirWatch ends the shared directory watch once its users have ended.
func (d *daemon) closeDirWatch() {
	if d.src.dirs != nil {
		_ = d.src.dirs.Close()
	}
}

// checkpointName is the log follower's checkpoint in the state directory.
const checkpointName = "follow-checkpoint.json"

// newFollower makes the log follower. A checkpoint it cannot use (cut
// short, not JSON, of another shape, a link or a FIFO) is a cache gone
// bad, not a reason to stay down: it is discarded with a warning and the
// logs are followed as on a first start, from the positions the journal
// itself records (resume) and else as the follower does with no
// checkpoint. The next save writes a good one.
func (d *daemon) newFollower(ctx context.Context, resume []follow.Position) (*follow.Follower, error) {
	opts := follow.Options{
		Sources:        d.logSources(),
		CheckpointFile: filepath.Join(d.stateDir, checkpointName),
		Resume:         resume,
		Logger:         d.log,
		Hub:            d.src.dirs,
		Warn: func(tag, path string, err error) {
			detail := err.Error()
			if path != "" {
				detail = "log " + path + ": " + detail
			}
			d.signal(ctx, health.Warning{Server: serverOfTag(tag), Detail: detail})
		},
	}
	f, err := follow.New(opts)
	if !errors.Is(err, follow.ErrBadCheckpoint) {
		return f, err
	}
	d.log.Warn("the log checkpoint cannot be used; discarding it and following the logs as on a first start",
		"path", opts.CheckpointFile, "err", err)
	d.signal(ctx, health.Warning{Detail: fmt.Sprintf(
		"the log checkpoint %s was discarded (%v); logs are followed as on a first start", opts.CheckpointFile, err)})
	// Removing a link removes the link, never its target.
	if rerr := os.Remove(opts.CheckpointFile); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w; and it cannot be removed: %w (remove it by hand)", err, rerr)
	}
	return follow.New(opts)
}

// hostFirstLookWait bounds how long the stores wait for the first look at
// the host process.
const hostFirstLookWait = 5 * time.Second

// startProc starts each host's process watcher and waits for their first
// reports to be queued before the stores start: a session restored from
// the last run that vanished meanwhile is the host's loss only if the host
// still runs, and the model must know that before it judges the first
// snapshot.
func (d *daemon) startProc(ctx context.Context, wg *sync.WaitGroup) {
	var firsts []chan struct{}
	for _, h := range d.watched {
		if !h.watchedProcess() {
			continue
		}
		src := d.procSource(h)
		firsts = append(firsts, src.first)
		d.startSource(ctx, wg, src)
	}
	if len(firsts) == 0 {
		return
	}
	select {
	case <-allClosed(firsts):
	case <-time.After(hostFirstLookWait):
	case <-ctx.Done():
	}
}

func goRun(wg *sync.WaitGroup, fn func()) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		fn()
	}()
}

func serverOfTag(tag string) string {
	if strings.HasPrefix(tag, hostTag) {
		return ""
	}
	return tag
}

// logSources are each host's logs (the file its output goes to when the
// watchdog restarts it, and its configured logs), then each server's.
func (d *daemon) logSources() []follow.Source {
	var srcs []follow.Source
	for _, h := range d.watched {
		globs := append([]string{filepath.Join(d.stateDir, h.fileName("host", ".log"))}, h.cfg.Logs...)
		srcs = append(srcs, follow.Source{Tag: hostTagOf(h.index), Globs: globs})
	}
	for _, s := range d.cfg.Servers {
		if len(s.Logs) > 0 {
			srcs = append(srcs, follow.Source{Tag: s.Name, Globs: s.Logs})
		}
	}
	return srcs
}

func (d *daemon) newStoreWatchers() map[string]*store.Watcher {
	ws := make(map[string]*store.Watcher, len(d.cfg.Servers))
	for _, s := range d.cfg.Servers {
		ws[s.Name] = store.NewWatcher(store.Options{Path: s.Store, Logger: d.log.With("server", s.Name), Hub: d.src.dirs})
	}
	return ws
}

// closeIfOpen closes a channel only its caller's goroutine closes.
func closeIfOpen(ch chan struct{}) {
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// allClosed is closed once every channel in chs is.
func allClosed(chs []chan struct{}) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, ch := range chs {
			<-ch
		}
	}()
	return done
}

// lookForHost asks h's process watcher to look now when a session of its
// client appears while it is not known to run: the host has most likely
// just started, and its sessions are kept warm only once it is seen.
func (d *daemon) lookForHost(h *hostWatch, evs []health.Event) {
	if _, _, running := h.model.HostProcess(); running {
		return
	}
	for _, ev := range evs {
		if ev.Kind == health.EvSessionNew && host.ClientMatch(h.cfg.ClientName, health.ClientOf(ev.Facts)) {
			select {
			case h.look <- struct{}{}:
			default:
			}
			return
		}
	}
}
