// Package dirwatch shares one inotify instance among everything in the
// process that watches directories.
//
// Each fsnotify.Watcher is a kernel inotify instance and a goroutine that
// reads into a 64 KiB buffer on its stack. A daemon with a session store per
// server had one per store: 52 at 50 servers, about 6 MB of stacks, and past
// 126 servers more than Linux's default of 128 instances a user may hold. A
// Hub holds one fsnotify.Watcher and hands out Watchers with its API
// (Events, Errors, Add, Remove, WatchList, Close), each told only of the
// directories it added.
package dirwatch

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

const (
	// eventBuffer is each Watcher's queue. Its reader is an event loop that
	// only notes names, so a small one rarely fills.
	eventBuffer = 64
	// stallLimit is how long the hub waits for a full Watcher before it
	// drops the event and tells that Watcher fsnotify.ErrEventOverflow
	// (its owner then looks at everything again, as after a kernel
	// overflow). It bounds how long one slow reader delays the others.
	stallLimit = 100 * time.Millisecond
)

// ErrClosed is returned by Add on a Watcher whose hub has stopped.
var ErrClosed = errors.New("dirwatch: hub closed")

// Hub owns the process's one fsnotify.Watcher and the goroutine that hands
// its events to the Watchers.
type Hub struct {
	fw   *fsnotify.Watcher
	mu   sync.Mutex
	subs map[*Watcher]bool
	done bool // the hub's goroutine has ended: new Watchers start closed
	stop context.CancelFunc
	end  chan struct{} // closed when the goroutine has ended
}

// Start makes a hub; its goroutine runs until ctx is done or Close.
func Start(ctx context.Context) (*Hub, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("dirwatch: %w", err)
	}
	ctx, stop := context.WithCancel(ctx)
	h := &Hub{fw: fw, subs: map[*Watcher]bool{}, stop: stop, end: make(chan struct{})}
	go h.run(ctx)
	return h, nil
}

// Close stops the hub and waits for its goroutine; every Watcher's
// channels are then closed. Safe to call more than once.
func (h *Hub) Close() error {
	h.stop()
	<-h.end
	return nil
}

// Open returns a Watcher on hub or, when hub is nil, on a hub of its own
// that the Watcher's Close also stops: a part run alone (in a test, or a
// one-shot command) still needs no hub from its caller.
func Open(ctx context.Context, hub *Hub) (*Watcher, error) {
	if hub != nil {
		return hub.Watch(), nil
	}
	// Like an fsnotify.Watcher, it lives until Close, not until ctx ends:
	// its reader sees closed channels only if the watch itself failed.
	own, err := Start(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	w := own.Watch()
	w.own = own
	return w, nil
}

// Watch returns a new Watcher that is told of the directories it adds.
func (h *Hub) Watch() *Watcher {
	w := &Watcher{hub: h, events: make(chan fsnotify.Event, eventBuffer), errors: make(chan error, 1),
		dirs: map[string]bool{}, gone: make(chan struct{})}
	w.Events, w.Errors = w.events, w.errors
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		close(w.events)
		close(w.errors)
		return w
	}
	h.subs[w] = true
	return w
}

func (h *Hub) run(ctx context.Context) {
	defer close(h.end)
	defer h.finish()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-h.fw.Events:
			if !ok {
				return
			}
			h.dispatch(ctx, ev)
		case err, ok := <-h.fw.Errors:
			if !ok {
				return
			}
			for _, w := range h.targets(func(*Watcher) bool { return true }) {
				w.sendErr(err)
			}
		}
	}
}

// finish closes the kernel watch and every Watcher's channels, so their
// readers see the end as they would a closed fsnotify.Watcher.
func (h *Hub) finish() {
	_ = h.fw.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.done = true
	for w := range h.subs {
		close(w.events)
		close(w.errors)
	}
	clear(h.subs)
}

// dispatch hands ev to every Watcher that watches the directory it
// happened in, or the directory it names.
func (h *Hub) dispatch(ctx context.Context, ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	dir := filepath.Dir(name)
	for _, w := range h.targets(func(w *Watcher) bool { return w.dirs[dir] || w.dirs[name] }) {
		w.send(ctx, ev)
	}
}

// targets lists the live Watchers that want, read under the lock.
func (h *Hub) targets(want func(*Watcher) bool) []*Watcher {
	h.mu.Lock()
	defer h.mu.Unlock()
	var ws []*Watcher
	for w := range h.subs {
		if want(w) {
			ws = append(ws, w)
		}
	}
	return ws
}

// watchedByOthers reports whether any Watcher other than except holds dir.
func (h *Hub) watchedByOthers(dir string, except *Watcher) bool {
	for w := range h.subs {
		if w != except && w.dirs[dir] {
			return true
		}
	}
	return false
}

// Watcher is one party's view of the hub, with fsnotify.Watcher's API.
// Only the hub's goroutine sends on its channels, and closes them when the
// hub ends.
type Watcher struct {
	Events <-chan fsnotify.Event
	Errors <-chan error

	hub    *Hub
	events chan fsnotify.Event
	errors chan error
	dirs   map[string]bool // guarded by hub.mu
	gone   chan struct{}   // closed by Close: the hub stops waiting on it
	once   sync.Once
	own    *Hub // the hub Open started for this Watcher alone, or nil
	lossy  bool // the hub's goroutine dropped an event since the queue last had room
}

// Add watches dir (a directory) for this Watcher. Adding one already
// watched is harmless, and re-arms a watch the kernel dropped when the
// directory was removed.
func (w *Watcher) Add(dir string) error {
	dir = filepath.Clean(dir)
	h := w.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done || !h.subs[w] {
		return ErrClosed
	}
	if err := h.fw.Add(dir); err != nil {
		return err
	}
	w.dirs[dir] = true
	return nil
}

// Remove stops watching dir for this Watcher; the kernel watch goes once
// no Watcher holds the directory.
func (w *Watcher) Remove(dir string) error {
	dir = filepath.Clean(dir)
	h := w.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if !w.dirs[dir] {
		return fmt.Errorf("dirwatch: %s: %w", dir, fsnotify.ErrNonExistentWatch)
	}
	delete(w.dirs, dir)
	if h.done || h.watchedByOthers(dir, w) {
		return nil
	}
	return h.fw.Remove(dir)
}

// WatchList is the directories this Watcher added that the kernel still
// watches (a removed directory's watch ends with it).
func (w *Watcher) WatchList() []string {
	h := w.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return nil
	}
	live := h.fw.WatchList()
	var out []string
	for d := range w.dirs {
		if slices.Contains(live, d) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

// Close lets go of this Watcher's directories. On a shared hub its
// channels stay open, with nothing more sent on them; on a hub of its own
// (Open without one) the hub stops and closes them, as fsnotify's would.
func (w *Watcher) Close() error {
	if w.own != nil {
		return w.own.Close()
	}
	w.once.Do(func() {
		close(w.gone)
		h := w.hub
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.subs, w)
		for d := range w.dirs {
			if !h.done && !h.watchedByOthers(d, w) {
				_ = h.fw.Remove(d) // may be gone with its directory
			}
		}
		clear(w.dirs)
	})
	return nil
}

// send queues ev. A full queue is waited on up to stallLimit; an event
// that still finds no room is dropped and the reader told of an overflow,
// so it looks at everything again. Until it has made room, later events
// are dropped at once (each with the overflow told again, in case the
// reader's look came before them): one stalled reader delays the others
// once, by stallLimit, not once per event.
func (w *Watcher) send(ctx context.Context, ev fsnotify.Event) {
	select {
	case w.events <- ev:
		w.lossy = false
		return
	default:
	}
	if !w.lossy {
		t := time.NewTimer(stallLimit)
		defer t.Stop()
		select {
		case w.events <- ev:
			return
		case <-w.gone:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
	w.lossy = true
	w.sendErr(fsnotify.ErrEventOverflow)
}

// sendErr never blocks: the queue holds one error, and an overflow takes
// the place of any other waiting there, since it makes the reader look at
// everything again.
func (w *Watcher) sendErr(err error) {
	select {
	case w.errors <- err:
		return
	default:
	}
	if !errors.Is(err, fsnotify.ErrEventOverflow) {
		return // an error is already waiting; this one would only be logged
	}
	select {
	case <-w.errors:
	default:
	}
	select {
	case w.errors <- err:
	default:
	}
}
