package autostart

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Enable writes the startup files for o and returns the main one's path
// (the service, the plist, the desktop entry); for systemd the socket
// unit beside it when o names sockets (and none when it names none).
// Writing the same content again is a no-op. It starts nothing: Supervise
// does.
func Enable(o Options) (string, error) {
	r, err := resolve(o)
	if err != nil {
		return "", err
	}
	_, err = r.write()
	return r.path(), err
}

// files are the startup files of r, by path, as they should be; a nil
// content means the file should not exist.
func (r resolved) files() (map[string][]byte, error) { return r.filesFor(r.spec()) }

// filesFor are the startup files for s: the daemon's, holding the
// control socket (and the proxies' too when it serves them itself), and
// with s.Role DaemonApart the proxy process's, holding the proxies'.
func (r resolved) filesFor(s Spec) (map[string][]byte, error) {
	daemon := s
	if s.Role == DaemonApart {
		daemon.Listen = nil
	}
	main, err := RenderSpec(r.kind, daemon)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{r.path(): main}
	proxy := Spec{Exe: s.Exe, Args: s.Args, Listen: s.Listen, Role: ProxyProcess}
	switch r.kind {
	case Systemd:
		out[r.socketPath()], out[r.proxyPath()], out[r.proxySocketPath()] = nil, nil, nil
		if daemon.holds() {
			if out[r.socketPath()], err = RenderSocket(daemon); err != nil {
				return nil, err
			}
		}
		if s.Role == DaemonApart {
			if out[r.proxyPath()], err = RenderSpec(Systemd, proxy); err == nil {
				out[r.proxySocketPath()], err = RenderSocket(proxy)
			}
		}
	case LaunchAgent:
		out[r.proxyPath()] = nil
		if s.Role == DaemonApart {
			out[r.proxyPath()], err = RenderSpec(LaunchAgent, proxy)
		}
	}
	return out, err
}

// write brings r's files to what they should be and lists those it
// changed.
func (r resolved) write() ([]string, error) {
	want, err := r.files()
	if err != nil {
		return nil, err
	}
	var changed []string
	for p, data := range want {
		ok, err := writeIfChanged(p, data)
		if err != nil {
			return changed, fmt.Errorf("autostart: %w", err)
		}
		if ok {
			changed = append(changed, p)
		}
	}
	return changed, nil
}

// writeIfChanged writes data to p unless p holds it already; nil data
// removes p. It reports whether p changed.
func writeIfChanged(p string, data []byte) (bool, error) {
	old, err := os.ReadFile(p)
	switch {
	case data == nil && errors.Is(err, fs.ErrNotExist):
		return false, nil
	case data == nil:
		return true, removeAbsent(p)
	case err == nil && bytes.Equal(old, data):
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false, err
	}
	return true, writeAtomic(p, data)
}

func removeAbsent(p string) error {
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Disable removes the startup files (and, for systemd, the socket unit
// and the wants links systemctl enable made) and returns the main file's
// path. Absent is not an error. It stops nothing: Unsupervise does.
func Disable(o Options) (string, error) {
	r, err := resolve(o)
	if err != nil {
		return "", err
	}
	return r.path(), r.remove()
}

func (r resolved) remove() error {
	paths := []string{r.path()}
	if r.kind == Systemd {
		for _, l := range r.wantsLinks() {
			if fi, err := os.Lstat(l); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				paths = append(paths, l)
			}
		}
		paths = append(paths, r.socketPath(), r.proxySocketPath())
	}
	if r.proxyPath() != "" {
		paths = append(paths, r.proxyPath())
	}
	for _, p := range paths {
		if err := removeAbsent(p); err != nil {
			return fmt.Errorf("autostart: %w", err)
		}
	}
	return nil
}

// Status reports whether the startup file exists, whether it starts this
// binary, restarts it and holds which sockets.
func Status(o Options) (State, error) {
	r, err := resolve(o)
	if err != nil {
		return State{Kind: r.kind}, err
	}
	st := State{Kind: r.kind, Path: r.path()}
	data, err := os.ReadFile(st.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("autostart: %w", err)
	}
	st.Enabled = true
	st.Exe = ExeOf(r.kind, data)
	st.PointsHere = st.Exe == r.exe
	st.Restarts = restartsAlways(r.kind, data)
	st.Sockets = r.installedSockets(data)
	st.Current = r.current()
	if r.kind == Systemd {
		_, err := os.Stat(r.wantsLinks()[0]) // follows the link: a dangling one is not linked
		st.Linked = err == nil
	}
	return st, nil
}

// current: every file is what write would make it.
func (r resolved) current() bool {
	want, err := r.files()
	if err != nil {
		return false
	}
	for p, data := range want {
		old, err := os.ReadFile(p)
		if data == nil && !errors.Is(err, fs.ErrNotExist) || data != nil && (err != nil || !bytes.Equal(old, data)) {
			return false
		}
	}
	return true
}

// installedSockets are the sockets the installed supervisor holds: the
// socket units' ListenStream values, or the LaunchAgents' Sockets (the
// daemon's and the proxy process's), sorted.
func (r resolved) installedSockets(main []byte) []string {
	var out []string
	switch r.kind {
	case Systemd:
		for _, p := range []string{r.socketPath(), r.proxySocketPath()} {
			if data, err := os.ReadFile(p); err == nil {
				out = append(out, SocketsOf(Systemd, data)...)
			}
		}
	case LaunchAgent:
		out = SocketsOf(LaunchAgent, main)
		if data, err := os.ReadFile(r.proxyPath()); err == nil {
			out = append(out, SocketsOf(LaunchAgent, data)...)
		}
	}
	slices.Sort(out)
	return out
}
