package proxyproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
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
	spawned    time.Time
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
			delay = linkRetryFirst
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

// maybeSpawn starts a proxy process when this daemon is to start one
// itself (ProxyProcessSpawn) and did not within spawnEvery.
func (s *Follower) maybeSpawn(ctx context.Context) {
	if s.Mode != Spawn || time.Since(s.spawned) < spawnEvery {
		return
	}
	s.spawned = time.Now()
	if err := s.spawn(ctx); err != nil {
		s.Log.Warn("cannot start the proxy process", "err", err)
		s.Out.Warning(ctx, "", "cannot start the proxy process (watchdog proxy); the proxies are not served: "+err.Error())
	}
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
	r := proxywire.NewReader(conn)
	for {
		m, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		s.take(ctx, m)
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

// spawn starts a proxy process detached from the daemon, the classic way:
// a shell in a session of its own starts it in the background and exits,
// so the process is nobody's child but init's (which reaps it), no signal
// to the daemon's group reaches it, and the daemon's death does not take
// it along. Its output goes to STATE_DIR/proxy.log. When one is already
// starting, it takes the proxy lock first and this one exits.
func (s *Follower) spawn(ctx context.Context) error {
	inner, err := s.proxyCommand()
	if err != nil {
		return err
	}
	logf, err := fsutil.OpenPrivate(filepath.Join(s.StateDir, proxyLogName), os.O_WRONLY|os.O_CREATE|os.O_APPEND)
	if err != nil {
		return fmt.Errorf("its log: %w", err)
	}
	defer logf.Close()
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", `"$0" "$@" </dev/null &`, inner.Path}, inner.Args[1:]...)...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = inner.Env, inner.Dir, logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Run(); err != nil {
		return err
	}
	s.Log.Info("started the proxy process", "log", logf.Name())
	return nil
}

// proxyCommand is Command's command, else this binary's
// `watchdog proxy` for the daemon's config and state directory.
func (s *Follower) proxyCommand() (*exec.Cmd, error) {
	if s.Command != nil {
		return s.Command(), nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("no command to start it with: %w", err)
	}
	args := []string{"proxy", "--state-dir", s.StateDir}
	if s.ConfigPath != "" {
		args = append(args, "--config", s.ConfigPath)
	}
	return exec.Command(exe, args...), nil
}
