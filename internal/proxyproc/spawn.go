package proxyproc

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
	"github.com/mcpwatchdog/watchdog/internal/sockact"
)

// OwnedEnv marks a proxy process its daemon started (Spawn): it ends when
// its config names no proxy to serve, there being nobody else to serve.
const OwnedEnv = "WATCHDOG_PROXY_OWNED"

// maybeSpawn starts a proxy process when this daemon is to start one
// itself (Spawn) and its config names a proxy: at once when the last one
// it started linked (a crash or a kill: hosts' connections wait in the
// held sockets meanwhile), else at most every spawnEvery (one that dies
// at its start is not started in a loop).
func (s *Follower) maybeSpawn(ctx context.Context) {
	if s.Mode != Spawn || len(s.Listens) == 0 || (!s.linked && time.Since(s.spawned) < spawnEvery) {
		return
	}
	s.spawned, s.linked = time.Now(), false
	if err := s.spawn(ctx); err != nil {
		s.Log.Warn("cannot start the proxy process", "err", err)
		s.Out.Warning(ctx, "", "cannot start the proxy process (watchdog proxy); the proxies are not served: "+err.Error())
	}
}

// spawnScript starts its first argument, a script, in the background in a
// shell of its own, and exits: the proxy process is nobody's child but
// init's (which reaps it), and the daemon's death does not take it
// along. The inner shell (spawnExec) makes LISTEN_PID its own pid and
// becomes the proxy process, as sd_listen_fds(3) wants.
const (
	spawnScript = `s=$1; shift; /bin/sh -c "$s" "$@" </dev/null &`
	spawnExec   = `LISTEN_PID=$$ exec "$0" "$@"`
)

// spawn starts a proxy process detached from the daemon, in a session of
// its own (no signal to the daemon's group reaches it), handing it the
// proxies' sockets the daemon holds as systemd hands a service its
// sockets (LISTEN_FDS, LISTEN_FDNAMES, LISTEN_PID). Its output goes to
// STATE_DIR/proxy.log. When one is already starting, it takes the proxy
// lock first and this one exits.
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
	files, names := s.socketFiles()
	defer func() {
		for _, f := range files {
			_ = f.Close()
		}
	}()
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", spawnScript, "sh", spawnExec, inner.Path}, inner.Args[1:]...)...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = spawnEnv(inner.Env, names), inner.Dir, logf, logf
	cmd.ExtraFiles = files
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Run(); err != nil {
		return err
	}
	s.Log.Info("started the proxy process", "log", logf.Name(), "sockets", names)
	return nil
}

// socketFiles are the proxies' sockets to hand a proxy process: each the
// daemon holds, opened now when it holds none. A port another program
// holds is left to the proxy process, which waits for it.
func (s *Follower) socketFiles() (files []*os.File, names []string) {
	for _, l := range s.Listens {
		f, err := s.Sockets.File(l)
		if err != nil {
			s.Log.Info("not holding a proxy's socket", "listen", l, "err", err)
			continue
		}
		files, names = append(files, f), append(names, sockact.ProxyName(l))
	}
	return files, names
}

// spawnEnv is env (nil: the daemon's) without any socket activation of
// its own, with the sockets named (names, in descriptor order from 3).
func spawnEnv(env []string, names []string) []string {
	if env == nil {
		env = os.Environ()
	}
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		for _, k := range []string{"LISTEN_PID=", "LISTEN_FDS=", "LISTEN_FDNAMES=", sockact.FromEnv + "=", OwnedEnv + "="} {
			if strings.HasPrefix(kv, k) {
				return true
			}
		}
		return false
	})
	env = append(env, OwnedEnv+"=1")
	if len(names) > 0 {
		env = append(env, "LISTEN_FDS="+strconv.Itoa(len(names)), "LISTEN_FDNAMES="+strings.Join(names, ":"), sockact.FromEnv+"="+sockact.FromDaemon)
	}
	return env
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

// stopWait bounds how long Stop waits for the proxy process to end.
const stopWait = 5 * time.Second

// Stop ends the proxy process of stateDir, if one runs: the watchdog was
// stopped on purpose (a daemon that crashes never calls it, and its
// proxies go on). It waits until the process let go of its link, at most
// stopWait.
func Stop(ctx context.Context, stateDir, why string) error {
	ctx, cancel := context.WithTimeout(ctx, stopWait)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "unix", SocketPath(stateDir))
	if err != nil {
		return nil // none runs
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	line, err := proxywire.Encode(proxywire.Message{Stop: &proxywire.Stop{Why: why}})
	if err != nil {
		return err
	}
	if _, err := conn.Write(line); err != nil {
		return fmt.Errorf("telling the proxy process to end: %w", err)
	}
	r := proxywire.NewReader(conn)
	for {
		if _, err := r.Read(); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("the proxy process did not end within %s", stopWait)
			}
			return nil
		}
	}
}
