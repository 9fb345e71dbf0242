package autostart

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"runtime"
	"slices"
)

// SyncResult is what SyncSockets found and did.
type SyncResult struct {
	Kind Kind   // the installed supervisor: Systemd or LaunchAgent; Auto when none
	Path string // the file that holds the socket list
	// Changed: the file was rewritten; ListChanged: the sockets it holds
	// are others than before (not only their spelling).
	Changed, ListChanged bool
	Sockets              []string // what it holds now, as SocketsOf reads it
	Did                  []string // each step taken: a file written, a command run
	// Note says why nothing was done, or what is left to do.
	Note string
}

// SyncSockets brings the socket list of the installed supervisor current
// with o.Listen and o.Control (every proxy_listen of the config, and the
// control socket): the socket unit, or the LaunchAgent's Sockets, leaving
// the binary and flags it starts as they are. Where systemd runs for the
// user it reloads (systemctl --user daemon-reload) and, only when the
// list changed, restarts the socket unit and the service if they run
// (try-restart: the daemon holds the old sockets until it is given the
// new ones). A loaded LaunchAgent whose list changed is loaded again. No
// supervisor installed (or only the XDG entry, which holds nothing) is a
// SyncResult with a Note and nothing done.
func SyncSockets(ctx context.Context, o Options) (SyncResult, error) {
	o.Kind = Systemd
	if o.GOOS == "darwin" || o.GOOS == "" && runtime.GOOS == "darwin" {
		o.Kind = LaunchAgent
	}
	r, err := resolve(o)
	if err != nil {
		return SyncResult{}, err
	}
	if _, err := os.Stat(r.path()); errors.Is(err, fs.ErrNotExist) {
		return SyncResult{Note: "no supervisor is installed (" + r.path() + " is absent): nothing holds the sockets"}, nil
	}
	if r.kind == LaunchAgent {
		return r.syncLaunchd(ctx)
	}
	return r.syncSystemd(ctx)
}

// syncSystemd rewrites only the socket units: the proxies' in the proxy
// process's (when its service is installed, else in the daemon's, as
// units of an older watchdog hold them), the control socket in the
// daemon's. The services (binary, flags) stay as installed.
func (r resolved) syncSystemd(ctx context.Context) (SyncResult, error) {
	want := map[string][]byte{r.socketPath(): nil, r.proxySocketPath(): nil}
	daemon, proxy := Spec{Control: r.Control, Listen: r.Listen}, Spec{Listen: r.Listen, Role: ProxyProcess}
	res := SyncResult{Kind: Systemd, Path: r.socketPath()}
	if _, err := os.Stat(r.proxyPath()); err == nil && len(r.Listen) > 0 {
		daemon.Listen, res.Path = nil, r.proxySocketPath()
		var err error
		if want[r.proxySocketPath()], err = RenderSocket(proxy); err != nil {
			return res, err
		}
	}
	if daemon.holds() {
		var err error
		if want[r.socketPath()], err = RenderSocket(daemon); err != nil {
			return res, err
		}
	}
	if err := res.bring(r, want, "the socket units"); err != nil || !res.Changed {
		return res, err
	}
	if !userSystemd(r.getenv) {
		res.Note = "no systemd user manager runs for this user here: it takes the new list at its next start"
		return res, nil
	}
	var steps Result
	defer func() { res.Did, res.Note = append(res.Did, steps.Did...), steps.Reason }()
	if r.systemctl(ctx, &steps, "daemon-reload") != nil || !res.ListChanged {
		return res, nil
	}
	_ = r.systemctl(ctx, &steps, append([]string{"try-restart"}, r.installedUnits()...)...)
	return res, nil
}

// syncLaunchd writes the LaunchAgents again with the new Sockets and the
// binary and flags the daemon's had, and loads them again when loaded.
func (r resolved) syncLaunchd(ctx context.Context) (SyncResult, error) {
	res := SyncResult{Kind: LaunchAgent, Path: r.path()}
	old, err := os.ReadFile(res.Path)
	if err != nil {
		return res, fmt.Errorf("autostart: %w", err)
	}
	args, ok := programArgs(old)
	exe := plistProgram(old)
	if !ok || exe == "" {
		res.Note = res.Path + " does not start `watchdog run`: left alone; `watchdog autostart enable` writes it again"
		return res, nil
	}
	s := Spec{Exe: exe, Args: args, Listen: r.Listen, Control: r.Control}
	if len(r.Listen) > 0 {
		s.Role = DaemonApart
	}
	want, err := r.filesFor(s)
	if err != nil {
		return res, err
	}
	if err := res.bring(r, want, "the LaunchAgents"); err != nil || !res.Changed {
		return res, err
	}
	if r.goos != "darwin" || !res.ListChanged {
		return res, nil
	}
	var steps Result
	for label, path := range map[string]string{BundleID: r.path(), ProxyLabel: r.proxyPath()} {
		target := r.domain() + "/" + label
		if _, err := r.run(ctx, "launchctl", "print", target); err != nil {
			continue // not loaded: launchd reads the new file at the next login
		}
		if r.step(ctx, &steps, "launchctl", "bootout", target) == nil {
			_ = r.step(ctx, &steps, "launchctl", "bootstrap", r.domain(), path)
		}
	}
	res.Did, res.Note = append(res.Did, steps.Did...), steps.Reason
	return res, nil
}

// bring writes the files of want where they differ (nil: absent; what
// names them in the note when none does), noting the sockets r's
// supervisor held before and holds now.
func (res *SyncResult) bring(r resolved, want map[string][]byte, what string) error {
	before := r.installedSockets(readOr(r.path()))
	for _, p := range slices.Sorted(maps.Keys(want)) {
		changed, err := writeIfChanged(p, want[p])
		if err != nil {
			return fmt.Errorf("autostart: %w", err)
		}
		if changed {
			res.Changed = true
			res.Did = append(res.Did, "wrote "+p)
		}
	}
	res.Sockets = r.installedSockets(readOr(r.path()))
	res.ListChanged = !slices.Equal(before, res.Sockets)
	if !res.Changed {
		res.Note = what + " are current"
	}
	return nil
}

func readOr(p string) []byte {
	b, _ := os.ReadFile(p)
	return b
}
