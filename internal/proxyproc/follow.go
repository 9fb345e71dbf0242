package proxyproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

// Who serves a daemon's proxies: the daemon itself (""), a proxy process
// a supervisor runs, or one the daemon starts itself.
const (
	Supervised = "supervised"
	Spawn      = "spawn"
)

// ModeKnown reports whether s is one of "", Supervised and Spawn.
func ModeKnown(s string) bool {
	return s == "" || s == Supervised || s == Spawn
}

// The link to the proxy process is tried again after linkRetryFirst,
// doubling to linkRetryMax: a restarted proxy process is linked within a
// second, so `status` says `proxied` again at once. A daemon that starts
// the process itself does so at most every spawnEvery.
const (
	linkRetryFirst = 50 * time.Millisecond
	linkRetryMax   = time.Second
	spawnEvery     = 5 * time.Second
)

// proxyLogName is the spawned proxy process's log in the state directory.
const proxyLogName = "proxy.log"

// Follower is a daemon's side of the proxy process that serves its
// proxies: what they see (sightings, warnings) goes to Out, and their
// state to Proxies for the status. It links over SocketPath and links
// again whenever the process restarts; while none is linked the status
// says why, and `hosts` says `proxy down`. It is a supervise.Source.
type Follower struct {
	StateDir string
	// Mode is Supervised or Spawn (the follower starts one itself).
	Mode string
	// Command starts a proxy process (Spawn). Zero: this binary's
	// `watchdog proxy` for ConfigPath and StateDir.
	Command    func() *exec.Cmd
	ConfigPath string
	Proxies    *Set
	Out        Reporter
	Log        *slog.Logger
	// Sockets are the daemon's: it holds every proxy's socket (opened
	// before a start, or handed over by the proxy process that links), so
	// a proxy process's crash queues hosts' connections instead of
	// refusing them, and passes them to each proxy process it starts.
	// Listens are the config's proxy_listen addresses.
	Sockets *Sockets
	Listens []string
	spawned time.Time
	linked  bool // a proxy process linked since the last start
}

// Name says what it follows.
func (s *Follower) Name() string { return "proxy process" }

// Run follows the proxy process until ctx ends.
func (s *Follower) Run(ctx context.Context, _ func(none) bool) error {
	s.Proxies.follow()
	delay := linkRetryFirst
	for ctx.Err() == nil {
		conn, err := (&net.Dialer{Timeout: 2 * time.Second}).DialContext(ctx, "unix", SocketPath(s.StateDir))
		if err == nil {
			delay, s.linked = linkRetryFirst, true
			err = s.follow(ctx, conn)
			s.Proxies.linked(nil, "the proxy process (watchdog proxy) stopped; it is started again")
			s.Log.Info("the proxy process's link ended", "err", err)
		} else {
			s.Proxies.linked(nil, "the proxy process (watchdog proxy) is not running: "+err.Error())
			s.maybeSpawn(ctx)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
		delay = min(2*delay, linkRetryMax)
	}
	return nil
}

// follow takes what the linked proxy process says until the link ends,
// and tells it the idle timeouts the servers keep.
func (s *Follower) follow(ctx context.Context, conn net.Conn) error {
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	done := make(chan struct{})
	defer close(done)
	go s.tune(conn, done)
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("the proxy process's link is a %T, not a unix socket", conn)
	}
	r := proxywire.NewFileReader(uc)
	defer r.Close()
	for {
		m, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if m.Sockets != nil {
			s.hold(m.Sockets.Listen, r)
			continue
		}
		s.take(ctx, m)
	}
}

// hold keeps the sockets the proxy process handed over (listens, their
// descriptors in r) beside the daemon's own.
func (s *Follower) hold(listens []string, r *proxywire.FileReader) {
	files, err := r.Files(len(listens))
	if err != nil {
		s.Log.Warn("the proxy process's sockets came without their descriptors", "err", err)
		return
	}
	for i, f := range files {
		if err := s.Sockets.Hold(listens[i], f); err != nil {
			s.Log.Warn("cannot hold a proxy's socket", "listen", listens[i], "err", err)
		}
	}
}

// take acts on one line of the proxy process.
func (s *Follower) take(ctx context.Context, m proxywire.Message) {
	switch {
	case m.Proxies != nil:
		s.Proxies.linked(m.Proxies, "")
	case m.Sighting != nil:
		if ev, ok := m.Sighting.Proxy(); ok {
			s.Out.Sighting(ctx, ev)
		}
	case m.Warning != nil:
		s.Out.Warning(ctx, m.Warning.Server, m.Warning.Detail)
	}
}

// tune sends the learned idle timeouts at the link and at each change,
// until done.
func (s *Follower) tune(conn net.Conn, done <-chan struct{}) {
	sent := map[string]time.Duration{}
	for {
		for server, t := range s.Proxies.idleTimeouts() {
			if sent[server] == t {
				continue
			}
			line, err := proxywire.Encode(proxywire.Message{IdleTimeout: &proxywire.IdleTimeout{Server: server, Timeout: t}})
			if err != nil {
				continue
			}
			_ = conn.SetWriteDeadline(time.Now().Add(hubWriteTimeout))
			if _, err := conn.Write(line); err != nil {
				return
			}
			sent[server] = t
		}
		select {
		case <-done:
			return
		case <-s.Proxies.apart.tune:
		}
	}
}
