package adopt

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/casfile"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/host"
)

// Errors callers branch on.
var (
	// ErrNoServer: a server named with --server is not in the host's files,
	// or is not one the proxy can stand in front of.
	ErrNoServer = errors.New("no such server to adopt")
	// ErrNotAdopted: release of a host (or server) adopt never changed.
	ErrNotAdopted = errors.New("not adopted")
	// ErrOAuth: a server named with --server signs in with OAuth; without
	// --force adopt refuses it.
	ErrOAuth = errors.New("signs in with OAuth")
	// ErrBusy: another adopt or release holds the lock.
	ErrBusy = errors.New("another adopt or release is running")
	// ErrKeptChanging: a file changed under every attempt to write it.
	ErrKeptChanging = errors.New("kept changing while it was written")
)

// Options say which host to adopt or release, and where things are.
type Options struct {
	Host  host.Profile
	Files []string // the host's config files, every scope (internal/host/find.Paths)
	// Servers limits adopt or release to these server names; empty: every
	// one.
	Servers    []string
	ConfigPath string // the watchdog's config file; it may not exist yet
	// Machine is what the watchdog watches while ConfigPath does not
	// exist, the machine as found (daemon.MachineConfig): adopt writes it
	// out when it makes the file, so that the daemon keeps watching it.
	// nil: nothing but the adopted host.
	Machine  func(ctx context.Context) (config.Config, error)
	StateDir string
	Secret   string // the proxy's (proxy.LoadSecret)
	// Force: adopt a server named with Servers that signs in with OAuth
	// (with a warning); release: forget values the user changed since
	// adopt (they are never written over).
	Force bool
	// SignIn says how the server at url signs its users in; nil: not
	// asked (a server is then taken for OAuth by its entry alone).
	SignIn func(ctx context.Context, url string) SignIn
	// Served waits until the running daemon serves a proxy on each of
	// listens with the current secret, and fails with why not; nil: no
	// daemon runs to wait for. Adopt calls it after the watchdog's config
	// is written and before any host file is: a host is never pointed at
	// a proxy a running daemon does not serve.
	Served func(ctx context.Context, listens []string) error
	// Now and Free are the clock and the check that an address can be
	// listened on; nil: time.Now and a real listen.
	Now  func() time.Time
	Free func(addr string) bool
	// Watchdog is the watchdog binary the wrappers of stdio servers run
	// (`watchdog stdio`), absolute; "": this program's own, links resolved.
	Watchdog string

	// drill is empty in a release build; a build with the watchdogdebug
	// tag gives it a fault drill (drill_debug.go).
	//lint:ignore U1000 empty in a release build, the drills in a debug one
	drill
	// watchdogErr says why Watchdog could not be found; stateAbs is
	// StateDir, absolute (a wrapper names it).
	watchdogErr error
	stateAbs    string
}

// SignIn is how a server signs its users in, as far as adopt cares.
type SignIn int

// The sign-ins.
const (
	SignInUnknown SignIn = iota // not asked, or no answer
	SignInNone                  // it took a request without credentials
	SignInHeader                // it wants credentials, not by OAuth
	SignInOAuth                 // RFC 9728: tokens bound to its own URL
)

// Result says what was done, a line each, and whether the host must be
// restarted to read its changed config.
type Result struct {
	Lines       []string
	RestartHost bool
	Changed     bool
	// Listens are the proxies the host's adopted servers now go through.
	Listens []string
}

// BasePort is where the proxies adopt configures start: each gets a port
// from its name (so it stays the same across adopt and release), moving up
// past ports in use.
const BasePort = 14300

// attempts bounds how often a transaction is planned again after a file
// changed under it: a host that rewrites its file all the time still
// leaves gaps of milliseconds.
const attempts = 40

// Adopt routes the host's servers through the proxy.
func Adopt(ctx context.Context, o Options) (Result, error) {
	o.fill()
	return transact(ctx, o, planAdopt)
}

func (o *Options) fill() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Watchdog == "" {
		o.Watchdog, o.watchdogErr = ownBinary()
	}
	o.stateAbs = o.StateDir
	if abs, err := filepath.Abs(o.StateDir); err == nil {
		o.stateAbs = abs
	}
	if o.Free == nil {
		o.Free = func(addr string) bool {
			l, err := net.Listen("tcp", addr)
			if err != nil {
				return false
			}
			_ = l.Close()
			return true
		}
	}
}

// transact runs one adopt or release under the lock: snapshot, plan,
// commit; when a file changed under the commit (which it then undid), it
// plans again on the new content.
func transact(ctx context.Context, o Options, plan func(context.Context, *Options, *state) (*change, error)) (Result, error) {
	unlock, err := lock(ctx, o.StateDir)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	for try := 1; ; try++ {
		st, err := snapshot(o)
		if err != nil {
			return Result{}, err
		}
		ch, err := plan(ctx, &o, st)
		if err != nil || !ch.writes() {
			return ch.result(), err
		}
		err = ch.commit(ctx, &o, st)
		if err == nil {
			return ch.result(), nil
		}
		if !errors.Is(err, casfile.ErrConflict) {
			return Result{}, err
		}
		if try == attempts {
			return Result{}, fmt.Errorf("%w: %w; it was left as it was (close the program that keeps writing it, and try again)", ErrKeptChanging, err)
		}
		if err := pause(ctx, try); err != nil {
			return Result{}, err
		}
	}
}

// pause waits a little, more each try, with jitter: two programs that
// met once should not meet again.
func pause(ctx context.Context, try int) error {
	d := time.Duration(1+rand.IntN(5*min(try, 10))) * time.Millisecond
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ownBinary is this program's executable, absolute, links resolved.
func ownBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", err
	}
	return filepath.Abs(exe)
}
