package autostart

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
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

func (r resolved) syncSystemd(ctx context.Context) (SyncResult, error) {
	res := SyncResult{Kind: Systemd, Path: r.socketPath()}
	want, err := RenderSocket(r.spec())
	if err != nil {
		return res, err
	}
	old, _ := os.ReadFile(res.Path)
	if err := res.write(old, want, "the socket unit"); err != nil || !res.Changed {
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
	_ = r.systemctl(ctx, &steps, "try-restart", SocketUnit, UnitName)
	return res, nil
}

// syncLaunchd writes the LaunchAgent again with the new Sockets and the
// binary and flags it had, and loads it again when it was loaded.
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
	want, err := RenderSpec(LaunchAgent, Spec{Exe: exe, Args: args, Listen: r.Listen, Control: r.Control})
	if err != nil {
		return res, err
	}
	if err := res.write(old, want, "the LaunchAgent"); err != nil || !res.Changed {
		return res, err
	}
	if r.goos != "darwin" || !res.ListChanged {
		return res, nil
	}
	target := r.domain() + "/" + BundleID
	if _, err := r.run(ctx, "launchctl", "print", target); err != nil {
		return res, nil // not loaded: launchd reads the new file at the next login
	}
	var steps Result
	if r.step(ctx, &steps, "launchctl", "bootout", target) == nil {
		_ = r.step(ctx, &steps, "launchctl", "bootstrap", r.domain(), res.Path)
	}
	res.Did, res.Note = append(res.Did, steps.Did...), steps.Reason
	return res, nil
}

// write puts want in res.Path in place of old unless they are the same
// (what names the file in the note then), noting what it held before and
// holds now.
func (res *SyncResult) write(old, want []byte, what string) error {
	res.Sockets = SocketsOf(res.Kind, want)
	if bytes.Equal(old, want) {
		res.Note = what + " is current"
		return nil
	}
	res.ListChanged = !slices.Equal(SocketsOf(res.Kind, old), res.Sockets)
	if _, err := writeIfChanged(res.Path, want); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	res.Changed = true
	res.Did = append(res.Did, "wrote "+res.Path)
	return nil
}
