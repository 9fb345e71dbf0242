// Package sockact takes the listening sockets a supervisor passed the
// process (socket activation): systemd's LISTEN_FDS/LISTEN_PID/
// LISTEN_FDNAMES (sd_listen_fds(3), read with coreos/go-systemd's
// activation package), or launchd's Sockets, asked for by name with
// launch_activate_socket (a cgo build on macOS only). The supervisor keeps
// each socket open while the process is down or restarting, so a host's
// connection waits in the kernel's queue instead of being refused.
package sockact

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/coreos/go-systemd/v22/activation"
)

// Sources of passed sockets, as Socket.From and the status name them.
const (
	FromSystemd = "systemd"
	FromLaunchd = "launchd"
	// FromDaemon: the watchdog daemon that started this proxy process
	// (`--proxy-process spawn`) passed them, the way systemd does.
	FromDaemon = "the watchdog daemon"
)

// FromEnv names who passed LISTEN_FDS when it was not systemd: a daemon
// that passes its sockets to its proxy process sets it to FromDaemon.
const FromEnv = "WATCHDOG_SOCKETS_FROM"

// ControlName is the name the control socket is passed under (launchd's
// Sockets key; a systemd FileDescriptorName). A proxy's is ProxyName.
const ControlName = "control"

// ProxyName is the name a proxy's socket is passed under: its listen
// address as the config writes it, with ':' (which LISTEN_FDNAMES uses
// as its separator, and systemd refuses in FileDescriptorName) as '_':
// "127.0.0.1:14300" is "proxy-127.0.0.1_14300".
func ProxyName(listen string) string { return "proxy-" + strings.ReplaceAll(listen, ":", "_") }

// ErrNoCgo: this build cannot ask launchd for its sockets
// (launch_activate_socket is a C call); the process opens its own.
var ErrNoCgo = errors.New("this build has no cgo, so it cannot take launchd's sockets (launch_activate_socket); it opens its own")

// Socket is one listening socket a supervisor passed.
type Socket struct {
	Name     string // LISTEN_FDNAMES entry or launchd Sockets key; "" when none
	From     string // FromSystemd, FromLaunchd or FromDaemon
	Listener net.Listener
}

// Addr is where the socket listens: host:port, or a unix socket's path.
func (s Socket) Addr() string { return s.Listener.Addr().String() }

// Set is the sockets passed to this process.
type Set struct {
	Sockets []Socket
	// Skipped says, per passed descriptor that is no listening stream
	// socket (a datagram socket, a FIFO), what it was; they are closed.
	Skipped []string
}

// Systemd takes the sockets systemd passed (nothing when LISTEN_PID is
// another process's), or a daemon the same way (FromEnv), and unsets
// LISTEN_PID, LISTEN_FDS, LISTEN_FDNAMES and FromEnv, so no child the
// process starts takes them for its own.
func Systemd() Set {
	var s Set
	from := FromSystemd
	if os.Getenv(FromEnv) == FromDaemon {
		from = FromDaemon
	}
	_ = os.Unsetenv(FromEnv)
	for _, f := range activation.Files(true) {
		ln, err := net.FileListener(f)
		if err != nil {
			s.Skipped = append(s.Skipped, fmt.Sprintf("descriptor %d (%s): %v", f.Fd(), f.Name(), err))
			_ = f.Close()
			continue
		}
		_ = f.Close() // FileListener holds a duplicate
		name := f.Name()
		if strings.HasPrefix(name, "LISTEN_FD_") {
			name = "" // activation's made-up name for an unnamed descriptor
		}
		s.Sockets = append(s.Sockets, Socket{Name: name, From: from, Listener: ln})
	}
	return s
}

// Take is the sockets a supervisor passed: systemd's when it passed any,
// else launchd's of the names asked for (macOS). A launchd that cannot be
// asked (a build without cgo) is an error wrapping ErrNoCgo, with what
// systemd passed still returned.
func Take(names []string) (Set, error) {
	s := Systemd()
	if len(s.Sockets) > 0 || len(s.Skipped) > 0 {
		return s, nil
	}
	return launchd(names)
}

// Empty reports whether nothing was passed.
func (s Set) Empty() bool { return len(s.Sockets) == 0 }

// Close closes every socket of the set.
func (s Set) Close() {
	for _, so := range s.Sockets {
		_ = so.Listener.Close()
	}
}

// MatchTCP reports whether a passed socket bound at got (its local address)
// or named name serves the configured listen address want: the same
// address and port, where "localhost" is either loopback address and an
// IPv4-mapped address is its IPv4 one; or the name ProxyName(want).
func MatchTCP(want, got, name string) bool {
	if name != "" && name == ProxyName(want) {
		return true
	}
	g, err := netip.ParseAddrPort(got)
	if err != nil {
		return false
	}
	host, portText, err := net.SplitHostPort(want)
	if err != nil {
		return false
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || uint16(port) != g.Port() {
		return false
	}
	ga := g.Addr().Unmap().WithZone("")
	if strings.EqualFold(host, "localhost") {
		return ga == netip.AddrFrom4([4]byte{127, 0, 0, 1}) || ga == netip.IPv6Loopback()
	}
	w, err := netip.ParseAddr(host)
	return err == nil && w.Unmap().WithZone("") == ga
}

// MatchUnix reports whether a passed unix socket bound at got serves the
// path want: the same path once cleaned, or the same file.
func MatchUnix(want, got string) bool {
	if want == "" || got == "" {
		return false
	}
	if filepath.Clean(want) == filepath.Clean(got) {
		return true
	}
	a, errA := os.Stat(want)
	b, errB := os.Stat(got)
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// TakeFor is Take of the sockets of the control socket and of each proxy
// address in listens, with what the process should say of them on stderr
// (one line each): where they came from, why launchd's could not be
// taken, the descriptors that were no listening socket (closed).
func TakeFor(listens []string, stateDir string) (Set, []string) {
	names := []string{ControlName}
	for _, l := range listens {
		names = append(names, ProxyName(l))
	}
	set, err := Take(names)
	var say []string
	if err != nil {
		say = append(say, err.Error())
	}
	for _, sk := range set.Skipped {
		say = append(say, "a passed descriptor is not a listening socket, closed: "+sk)
	}
	if !set.Empty() {
		addrs := make([]string, 0, len(set.Sockets))
		for _, so := range set.Sockets {
			addrs = append(addrs, so.Addr())
		}
		say = append(say, fmt.Sprintf("serving on the sockets %s holds: %s (state dir %s)", set.Sockets[0].From, strings.Join(addrs, ", "), stateDir))
	}
	return set, say
}
