package proxyproc

import (
	"fmt"
	"net"
	"os"
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
	for _, so := range s.passed {
		if _, tcp := so.Listener.(*net.TCPListener); tcp && sockact.MatchTCP(listen, so.Addr(), so.Name) {
			ln, err := dupListener(so.Listener)
			return ln, so.From, err
		}
	}
	ln, ok := s.own[listen]
	if !ok {
		var err error
		if ln, err = proxy.Listen(listen); err != nil {
			return nil, "", err
		}
		s.own[listen] = ln
	}
	dup, err := dupListener(ln)
	return dup, "", err
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

// KeepOnly closes the daemon's own proxy sockets whose address the config
// no longer names, so that the port is free for others.
func (s *Sockets) KeepOnly(listens map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for addr, ln := range s.own {
		if !listens[addr] {
			_ = ln.Close()
			delete(s.own, addr)
		}
	}
}

// Unused are the passed sockets that serve none of listens (proxy
// addresses) nor the control socket at control: a socket unit or
// LaunchAgent written for another config.
func (s *Sockets) Unused(listens map[string]bool, control string) []sockact.Socket {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []sockact.Socket
	for _, so := range s.passed {
		used := sockact.MatchUnix(control, so.Addr())
		for l := range listens {
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
