package proxyproc

import (
	"fmt"
	"net"
	"os"
	"slices"
	"sync"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/sockact"
)

// Sockets are the listening sockets of the proxies and the control socket,
// kept across the runs of one process (a config reload ends a run): the
// ones a supervisor passed (systemd, launchd) for the process's life, and
// the proxies' own ones the daemon opened while their address stays in
// the config. A run serves a duplicate of each and closes it when it
// ends; the socket itself stays open, so a host's connection made while
// the next run starts waits in its queue instead of being refused.
type Sockets struct {
	mu     sync.Mutex
	passed []sockact.Socket
	own    map[string]net.Listener // by proxy_listen
}

// NewSockets keeps the sockets a supervisor passed (none: the zero Set).
func NewSockets(passed sockact.Set) *Sockets {
	return &Sockets{passed: passed.Sockets, own: map[string]net.Listener{}}
}

// Proxy is a listener for a run to serve listen on, and where its socket
// came from (sockact.FromSystemd, FromLaunchd, or "" for the daemon's
// own): the passed socket of that address when there is one, else the
// daemon's own, opened now if it is not open yet. An error wrapping
// syscall.EADDRINUSE means another program holds the port.
func (s *Sockets) Proxy(listen string) (net.Listener, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ln, from, err := s.socket(listen)
	if err != nil {
		return nil, "", err
	}
	dup, err := dupListener(ln)
	return dup, from, err
}

// socket is the socket of listen, opened now when none is held (mu held).
func (s *Sockets) socket(listen string) (net.Listener, string, error) {
	for _, so := range s.passed {
		if _, tcp := so.Listener.(*net.TCPListener); tcp && sockact.MatchTCP(listen, so.Addr(), so.Name) {
			return so.Listener, so.From, nil
		}
	}
	if ln, ok := s.own[listen]; ok {
		return ln, "", nil
	}
	ln, err := proxy.Listen(listen)
	if err != nil {
		return nil, "", err
	}
	s.own[listen] = ln
	return ln, "", nil
}

// File is a duplicate of the socket of listen as a file, to hand to
// another process (a proxy process this one starts, a daemon that links);
// opened now when none is held, as Proxy opens it.
func (s *Sockets) File(listen string) (*os.File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ln, _, err := s.socket(listen)
	if err != nil {
		return nil, err
	}
	fl, ok := ln.(interface{ File() (*os.File, error) })
	if !ok {
		return nil, fmt.Errorf("a %T cannot be shared", ln)
	}
	return fl.File()
}

// Hold keeps f, a listening socket of listen another process handed over
// (the proxy process's, for its daemon to hold while it restarts), unless
// one of listen is held already; it takes f either way.
func (s *Sockets) Hold(listen string, f *os.File) error {
	defer f.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, so := range s.passed {
		if sockact.MatchTCP(listen, so.Addr(), so.Name) {
			return nil
		}
	}
	if _, ok := s.own[listen]; ok {
		return nil
	}
	ln, err := net.FileListener(f)
	if err != nil {
		return fmt.Errorf("the socket handed over for %s: %w", listen, err)
	}
	s.own[listen] = ln
	return nil
}

// Control is a duplicate of the passed control socket at path, and where
// it came from; nil when none was passed (the run opens its own).
func (s *Sockets) Control(path string) (net.Listener, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, so := range s.passed {
		if _, unix := so.Listener.(*net.UnixListener); unix && sockact.MatchUnix(path, so.Addr()) {
			ln, err := dupListener(so.Listener)
			return ln, so.From, err
		}
	}
	return nil, "", nil
}

// KeepOnly closes the process's own proxy sockets whose address the
// config no longer names, so that the port is free for others, and those
// its daemon passed (which it opens again when it needs them); what a
// supervisor passed stays, as the supervisor holds it.
func (s *Sockets) KeepOnly(listens []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for addr, ln := range s.own {
		if !slices.Contains(listens, addr) {
			_ = ln.Close()
			delete(s.own, addr)
		}
	}
	kept := s.passed[:0]
	for _, so := range s.passed {
		used := false
		for _, l := range listens {
			used = used || sockact.MatchTCP(l, so.Addr(), so.Name)
		}
		if so.From == sockact.FromDaemon && !used {
			_ = so.Listener.Close()
			continue
		}
		kept = append(kept, so)
	}
	s.passed = kept
}

// Unused are the passed sockets that serve none of listens (proxy
// addresses) nor the control socket at control: a socket unit or
// LaunchAgent written for another config.
func (s *Sockets) Unused(listens []string, control string) []sockact.Socket {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []sockact.Socket
	for _, so := range s.passed {
		used := sockact.MatchUnix(control, so.Addr())
		for _, l := range listens {
			used = used || sockact.MatchTCP(l, so.Addr(), so.Name)
		}
		if !used {
			out = append(out, so)
		}
	}
	return out
}

// From says where the sockets came from when any was passed: "systemd" or
// "launchd"; "" when the daemon opened every one itself.
func (s *Sockets) From() string {
	if len(s.passed) == 0 {
		return ""
	}
	return s.passed[0].From
}

// Close closes every socket: the process is ending.
func (s *Sockets) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, so := range s.passed {
		_ = so.Listener.Close()
	}
	for addr, ln := range s.own {
		_ = ln.Close()
		delete(s.own, addr)
	}
}

// dupListener is a new listener on ln's socket: closing it leaves ln's
// open, and both accept from the one queue.
func dupListener(ln net.Listener) (net.Listener, error) {
	fl, ok := ln.(interface{ File() (*os.File, error) })
	if !ok {
		return nil, fmt.Errorf("a %T cannot be shared", ln)
	}
	f, err := fl.File()
	if err != nil {
		return nil, fmt.Errorf("share listener %s: %w", ln.Addr(), err)
	}
	defer f.Close()
	dup, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("share listener %s: %w", ln.Addr(), err)
	}
	return dup, nil
}
