package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/peer"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

// stdioRescan is the slow look at the supervisors' folder beside its
// watch: a socket whose event was lost is followed within it, and a dead
// one (a supervisor killed with kill -9) is removed.
const stdioRescan = 30 * time.Second

// stdioRelinkAfter: a link that was up this long and broke while its
// socket is still there is linked again at once.
const stdioRelinkAfter = time.Second

// stdioDialTimeout bounds a connect to a supervisor's socket.
const stdioDialTimeout = 2 * time.Second

// stdioSource follows every stdio supervisor (watchdog stdio) running on
// this machine for this state directory: each listens on
// STATE_DIR/stdio/<pid>.sock while it runs and writes proxywire lines of
// what it saw of its server, its backlog first. The folder is watched;
// each socket is linked once (its peer checked to be this user) and read
// until it closes: a socket that is gone is done, one refused is a dead
// supervisor's and is removed. Each report reaches the loop as a
// health.StdioSeen; a link's end as the supervisor's StdioUnlinked.
type stdioSource struct {
	dir string
	hub *dirwatch.Hub
	log *slog.Logger
	// relinkAfter: stdioRelinkAfter, shorter in tests.
	relinkAfter time.Duration
}

// stdioSourceOf is the daemon's stdio source.
func (d *daemon) stdioSourceOf() *stdioSource {
	return &stdioSource{dir: filepath.Join(d.stateDir, proxywire.StdioDir), hub: d.src.dirs, log: d.log, relinkAfter: stdioRelinkAfter}
}

func (s *stdioSource) name() string { return "stdio supervisors" }

func (s *stdioSource) run(ctx context.Context, emit emitFunc) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("the stdio supervisors' folder: %w", err)
	}
	w, err := dirwatch.Open(ctx, s.hub)
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Add(s.dir); err != nil {
		return fmt.Errorf("watching %s: %w", s.dir, err)
	}
	l := &stdioLinks{s: s, emit: emit, linked: map[string]bool{}, ended: make(chan linkEnd, 16)}
	lctx, cancel := context.WithCancel(ctx)
	defer l.wg.Wait()
	defer cancel()
	l.scan(lctx)
	t := time.NewTicker(stdioRescan)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("the stdio supervisors' folder watch ended")
			}
			l.changed(lctx, ev)
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("the stdio supervisors' folder watch ended")
			}
			s.log.Debug("stdio supervisors' folder watch", "err", err)
			l.scan(lctx) // an overflow: look at everything again
		case end := <-l.ended:
			delete(l.linked, end.path)
			if end.broke {
				l.link(lctx, end.path) // at once: its supervisor may run on
			}
		case <-t.C:
			l.scan(lctx)
		}
	}
}

// stdioLinks are the source's links, one per socket; only run's goroutine
// touches linked.
type stdioLinks struct {
	s      *stdioSource
	emit   emitFunc
	linked map[string]bool // sockets followed, or refused for their peer
	ended  chan linkEnd    // a link's socket, when the link ends
	wg     sync.WaitGroup
}

// linkEnd is a link's end: broke when it was up (for stdioRelinkAfter at
// least: one that keeps ending at once waits for the rescan) and its
// socket is still there, so its supervisor may run on and it is linked
// again at once.
type linkEnd struct {
	path  string
	broke bool
}

// changed acts on one event of the folder: a new socket is followed.
func (l *stdioLinks) changed(ctx context.Context, ev fsnotify.Event) {
	if ev.Has(fsnotify.Create) && isSupervisorSocket(ev.Name) {
		l.link(ctx, ev.Name)
	}
}

// scan follows every socket of the folder not followed yet.
func (l *stdioLinks) scan(ctx context.Context) {
	entries, err := os.ReadDir(l.s.dir)
	if err != nil {
		l.s.log.Warn("cannot read the stdio supervisors' folder", "dir", l.s.dir, "err", err)
		return
	}
	for _, e := range entries {
		if p := filepath.Join(l.s.dir, e.Name()); isSupervisorSocket(p) {
			l.link(ctx, p)
		}
	}
}

func (l *stdioLinks) link(ctx context.Context, path string) {
	if l.linked[path] {
		return
	}
	l.linked[path] = true
	l.wg.Go(func() {
		began := time.Now()
		end := linkEnd{path: path, broke: l.follow(ctx, path) && time.Since(began) >= l.s.relinkAfter}
		if end.broke {
			_, err := os.Lstat(path)
			end.broke = err == nil
		}
		select {
		case l.ended <- end:
		case <-ctx.Done():
		}
	})
}

// isSupervisorSocket: "<pid>.sock".
func isSupervisorSocket(path string) bool {
	_, ok := supervisorPID(path)
	return ok
}

func supervisorPID(path string) (int, bool) {
	stem, ok := strings.CutSuffix(filepath.Base(path), ".sock")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(stem)
	return pid, err == nil && pid > 0
}

// follow links to the supervisor at path and hands the loop what it says
// until the link ends, then that it is gone; up: the link was made. A
// dead supervisor's socket is removed; a peer of another user is refused
// and left alone (linked stays set, so it is not tried again while its
// file is there).
func (l *stdioLinks) follow(ctx context.Context, path string) (up bool) {
	pid, _ := supervisorPID(path)
	conn, err := l.dial(ctx, path, pid)
	if err != nil {
		l.s.log.Debug("no link to a stdio supervisor", "path", path, "err", err)
		return false
	}
	defer conn.Close()
	if uid, err := peer.UID(conn); err != nil || uid != os.Geteuid() {
		l.s.log.Warn("refused a stdio supervisor's socket of another user", "path", path, "uid", uid, "err", err)
		l.hold(ctx, path)
		return false
	}
	if !l.emit(signalIn{sig: health.SignalOf(health.StdioSeen{Report: health.StdioReport{Kind: health.StdioLinked, PID: pid}})}) {
		return false
	}
	err = l.read(ctx, conn, pid)
	if ctx.Err() != nil {
		return false
	}
	l.s.log.Info("a stdio supervisor's link ended", "path", path, "err", err)
	l.emit(signalIn{sig: health.SignalOf(health.StdioSeen{Report: health.StdioReport{Kind: health.StdioUnlinked, PID: pid}})})
	return true
}

// stdioRefusedTries bounds the connects to a socket that refuses while
// its supervisor lives: one found between its bind and its listen is
// ready a moment later. The first retry comes after stdioRefusedFirst,
// each later one after twice the wait before.
const (
	stdioRefusedTries = 6
	stdioRefusedFirst = 20 * time.Millisecond
)

// dial connects to the supervisor's socket. A socket that refuses is a
// dead supervisor's when its process is gone: it is removed. Its live
// supervisor's may not listen yet: it is tried again a few times.
func (l *stdioLinks) dial(ctx context.Context, path string, pid int) (net.Conn, error) {
	wait := stdioRefusedFirst
	for try := 1; ; try++ {
		conn, err := (&net.Dialer{Timeout: stdioDialTimeout}).DialContext(ctx, "unix", path)
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return conn, err
		}
		if !processAlive(pid) {
			l.removeDead(path)
			return nil, err
		}
		if try == stdioRefusedTries {
			return nil, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait *= 2
	}
}

func (l *stdioLinks) removeDead(path string) {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		l.s.log.Warn("cannot remove a dead stdio supervisor's socket", "path", path, "err", err)
		return
	}
	l.s.log.Info("removed a dead stdio supervisor's socket", "path", path)
}

// processAlive reports whether process pid exists (of any user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// hold keeps a refused socket linked (not tried again) until its file goes.
func (l *stdioLinks) hold(ctx context.Context, path string) {
	for ctx.Err() == nil {
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			return
		}
		t := time.NewTimer(stdioRescan)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
}

// read hands the loop each report of the link; nil at its end.
func (l *stdioLinks) read(ctx context.Context, conn net.Conn, pid int) error {
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	r := proxywire.NewReader(conn)
	for {
		m, err := r.Read()
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case errors.Is(err, proxywire.ErrLineTooLong):
			return err
		case notJSON(err):
			l.s.log.Warn("a stdio supervisor wrote a line that is not a report", "pid", pid, "err", err)
			continue
		case err != nil:
			return err
		case m.Stdio == nil:
			continue
		}
		if !l.emit(signalIn{sig: health.SignalOf(stdioSeen(*m.Stdio, pid))}) {
			return nil
		}
	}
}

// notJSON: err is a line that did not parse, and the link reads on.
func notJSON(err error) bool {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &syn) || errors.As(err, &typ)
}

// restoreStdio gives the stdio model the journal's stdio events at a
// start: what each server went through, and its supervisors until their
// sockets are linked again.
func (d *daemon) restoreStdio(recs []journal.Record) {
	evs := make([]health.Event, 0, len(recs))
	for _, r := range recs {
		evs = append(evs, health.Event(r))
	}
	d.stdio.Restore(evs)
}

// stdioSeen is a supervisor's report as the model takes it; its pid is
// its socket's, whatever the line says.
func stdioSeen(s proxywire.Stdio, pid int) health.StdioSeen {
	return health.StdioSeen{Server: s.Server, Detail: s.Detail, Report: health.StdioReport{Kind: health.StdioKind(s.Kind), Host: s.Host,
		At: s.Time, PID: pid, Child: s.Child, Starts: s.Starts, Took: s.Took, Exit: s.Exit, Method: s.Method, Stderr: s.Stderr}}
}
