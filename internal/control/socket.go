package control

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrSocketInUse means a live daemon is serving on the socket path.
var ErrSocketInUse = errors.New("control socket in use by a running daemon")

// maxSocketPath is the portable limit for a unix socket path (sun_path is
// 104 bytes on macOS, 108 on Linux, both counting the NUL).
const maxSocketPath = 103

// probeTimeout bounds the connect that tells a live socket from a stale one.
const probeTimeout = 2 * time.Second

// listen prepares the directory, clears a stale socket and listens with
// mode 0600.
func listen(path string) (*net.UnixListener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("control: socket path %s is %d bytes, longer than the %d a unix socket allows", path, len(path), maxSocketPath)
	}
	if err := prepareDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if err := clearStale(path); err != nil {
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("control: listen on %s: %w", path, err)
	}
	// The directory is private, so the moment between bind and chmod is
	// not reachable by other users.
	if err := os.Chmod(path, 0o600); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("control: chmod %s: %w", path, err)
	}
	return ln, nil
}

// prepareDir creates dir 0700 when missing and refuses one that others can
// write to, where another user could swap the socket. An existing directory
// is never chmodded: it may be shared (e.g. /tmp).
func prepareDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("control: create socket dir: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("control: socket dir: %w", err)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("control: socket dir %s is writable by group or others (mode %o); use a private directory", dir, fi.Mode().Perm())
	}
	return nil
}

// clearStale removes a socket file no daemon answers on. It leaves alone a
// socket a live daemon serves (ErrSocketInUse) and anything that is not a
// socket.
func clearStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("control: socket path: %w", err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("control: %s exists and is not a socket; not replacing it", path)
	}
	conn, err := net.DialTimeout("unix", path, probeTimeout)
	if err == nil {
		_ = conn.Close()
		return fmt.Errorf("control: %s: %w", path, ErrSocketInUse)
	}
	if !isNoListener(err) {
		return fmt.Errorf("control: probe existing socket %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("control: remove stale socket: %w", err)
	}
	return nil
}

// isNoListener reports whether a dial error means nobody serves the path.
func isNoListener(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}

// Listen listens on a unix socket at path as Serve does (the directory
// private, a stale socket replaced, a live one refused with
// ErrSocketInUse, the socket made 0600), for a socket of another protocol
// beside the control socket (the proxy process's).
func Listen(path string) (*net.UnixListener, error) { return listen(path) }

// SocketName is the daemon's control socket's name inside the state
// directory.
const SocketName = "watchdog.sock"

// SocketPath is where the daemon of stateDir answers `status` and `heal`.
func SocketPath(stateDir string) string { return filepath.Join(stateDir, SocketName) }
