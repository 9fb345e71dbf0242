package stdio

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

	"github.com/mcpwatchdog/watchdog/internal/peer"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

// Rescan is the slow look at the supervisors' folder beside its
// watch: a socket whose event was lost is followed within it, and a dead
// one (a supervisor killed with kill -9) is removed.
const Rescan = 30 * time.Second

// RelinkAfter: a link that was up this long and broke while its
// socket is still there is linked again at once.
const RelinkAfter = time.Second

// dialTimeout bounds a connect to a supervisor's socket.
const dialTimeout = 2 * time.Second

// Follower is a daemon's side of the stdio supervisors (watchdog stdio)
// running on this machine for its state directory: each listens on
// STATE_DIR/stdio/<pid>.sock while it runs and writes proxywire lines of
// what it saw of its server, its backlog first. The folder is watched;
// each socket is linked once (its peer checked to be this user) and read
// until it closes: a socket that is gone is done, one refused is a dead
// supervisor's and is removed. Each report is emitted as a Report; a
// link's start and end as the kinds Linked and Unlinked. It is a
// supervise.Source of Reports.
type Follower struct {
	Dir string        // STATE_DIR/proxywire.StdioDir
	Hub *dirwatch.Hub // nil: a watch of its own
	Log *slog.Logger
	// RelinkAfter: the package's RelinkAfter when zero; shorter in tests.
	RelinkAfter time.Duration
}

// A Report is one supervisor's word: its line, or (Kind Linked, Unlinked)
// that its link came up or ended. PID is its socket's, whatever the line
// says.
type Report struct {
	PID int
	proxywire.Stdio
}

// The daemon's own kinds of Report: it linked to a supervisor, and that
// link ended.
const (
	Linked   = "linked"
	Unlinked = "unlinked"
)

// Name says what it follows.
func (s *Follower) Name() string { return "stdio supervisors" }

// Run follows the supervisors until ctx ends or emit says stop.
func (s *Follower) Run(ctx context.Context, emit func(Report) bool) error {
	if s.RelinkAfter == 0 {
		s.RelinkAfter = RelinkAfter
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("the stdio supervisors' folder: %w", err)
	}
	w, err := dirwatch.Open(ctx, s.Hub)
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Add(s.Dir); err != nil {
		return fmt.Errorf("watching %s: %w", s.Dir, err)
	}
	l := &stdioLinks{s: s, emit: emit, linked: map[string]bool{}, ended: make(chan linkEnd, 16)}
	lctx, cancel := context.WithCancel(ctx)
	defer l.wg.Wait()
	defer cancel()
	l.scan(lctx)
	t := time.NewTicker(Rescan)
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
			s.Log.Debug("stdio supervisors' folder watch", "err", err)
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
	s      *Follower
	emit   func(Report) bool
	linked map[string]bool // sockets followed, or refused for their peer
	ended  chan linkEnd    // a link's socket, when the link ends
	wg     sync.WaitGroup
}

// linkEnd is a link's end: broke when it was up (for RelinkAfter at
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
	entries, err := os.ReadDir(l.s.Dir)
	if err != nil {
		l.s.Log.Warn("cannot read the stdio supervisors' folder", "dir", l.s.Dir, "err", err)
		return
	}
	for _, e := range entries {
		if p := filepath.Join(l.s.Dir, e.Name()); isSupervisorSocket(p) {
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
		end := linkEnd{path: path, broke: l.follow(ctx, path) && time.Since(began) >= l.s.RelinkAfter}
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

// follow links to the supervisor at path and emits what it says
// until the link ends, then that it is gone; up: the link was made. A
// dead supervisor's socket is removed; a peer of another user is refused
// and left alone (linked stays set, so it is not tried again while its
// file is there).
func (l *stdioLinks) follow(ctx context.Context, path string) (up bool) {
	pid, _ := supervisorPID(path)
	conn, err := l.dial(ctx, path, pid)
	if err != nil {
		l.s.Log.Debug("no link to a stdio supervisor", "path", path, "err", err)
		return false
	}
	defer conn.Close()
	if uid, err := peer.UID(conn); err != nil || uid != os.Geteuid() {
		l.s.Log.Warn("refused a stdio supervisor's socket of another user", "path", path, "uid", uid, "err", err)
		l.hold(ctx, path)
		return false
	}
	if !l.emit(Report{PID: pid, Stdio: proxywire.Stdio{Kind: Linked}}) {
		return false
	}
	err = l.read(ctx, conn, pid)
	if ctx.Err() != nil {
		return false
	}
	l.s.Log.Info("a stdio supervisor's link ended", "path", path, "err", err)
	l.emit(Report{PID: pid, Stdio: proxywire.Stdio{Kind: Unlinked}})
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
		conn, err := (&net.Dialer{Timeout: dialTimeout}).DialContext(ctx, "unix", path)
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
		l.s.Log.Warn("cannot remove a dead stdio supervisor's socket", "path", path, "err", err)
		return
	}
	l.s.Log.Info("removed a dead stdio supervisor's socket", "path", path)
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
		t := time.NewTimer(Rescan)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
}

// read emits each report of the link; nil at its end.
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
			l.s.Log.Warn("a stdio supervisor wrote a line that is not a report", "pid", pid, "err", err)
			continue
		case err != nil:
			return err
		case m.Stdio == nil:
			continue
		}
		if !l.emit(Report{PID: pid, Stdio: *m.Stdio}) {
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
