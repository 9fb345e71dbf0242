package autostart

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// commandTimeout bounds each systemctl or launchctl run.
const commandTimeout = 30 * time.Second

// Result is what Supervise did, and what the daemon can count on now.
type Result struct {
	Kind  Kind
	Files []string // the startup files, written or found current
	// Did lists each step taken: a file written, a command run.
	Did []string
	// AtLogin: the daemon is started at every login (an XDG entry: at a
	// desktop login only).
	AtLogin bool
	// Restarts: a supervisor restarts the daemon after every exit and
	// holds its sockets meanwhile (systemd, launchd).
	Restarts bool
	// Running: the supervisor started the daemon now (Options.Now).
	Running bool
	// Reason says, when any of the above is false, why, and what to do.
	Reason string
}

// Supervise makes sure a supervisor starts the daemon at login and
// restarts it after every exit, holding o.Listen and o.Control while it
// restarts: the systemd user service and socket unit where systemd runs
// for the user (enabled with systemctl --user), a LaunchAgent on macOS
// (loaded with launchctl when o.Now), else the XDG autostart entry, which
// only starts the daemon at a desktop login (Result.Restarts false, and
// Reason says what hosts then depend on). Files already current are left
// alone. An error is a file it could not write; a supervisor it could not
// reach is a Result with Reason.
func Supervise(ctx context.Context, o Options) (Result, error) {
	r, err := resolve(o)
	if err != nil {
		return Result{Kind: r.kind}, err
	}
	changed, err := r.write()
	res := Result{Kind: r.kind, Files: r.present()}
	for _, p := range changed {
		res.Did = append(res.Did, "wrote "+p)
	}
	if err != nil {
		return res, err
	}
	switch r.kind {
	case Systemd:
		r.systemdOn(ctx, &res, len(changed) > 0)
	case LaunchAgent:
		r.launchdOn(ctx, &res, len(changed) > 0)
	default:
		res.AtLogin = true
		res.Reason = "no systemd user manager runs for this user and this is not macOS: the XDG autostart entry starts the " +
			"daemon at the next desktop login only (not at an SSH or headless login), and nothing restarts it after an exit: " +
			"hosts pointed at its proxies depend on a running `watchdog run`"
	}
	return res, nil
}

// present lists r's startup files that exist.
func (r resolved) present() []string {
	var out []string
	for _, p := range []string{r.path(), r.socketPath(), r.proxyPath(), r.proxySocketPath()} {
		if _, err := os.Stat(p); err == nil && (p == r.path() || p == r.proxyPath() || r.kind == Systemd) {
			out = append(out, p)
		}
	}
	return out
}

// systemdOn enables the units (and starts them with Now) through the
// user's systemd.
func (r resolved) systemdOn(ctx context.Context, res *Result, changed bool) {
	if !userSystemd(r.getenv) {
		res.Reason = "no systemd user manager runs for this user here ($XDG_RUNTIME_DIR/systemd/private is absent): " +
			"the units are written; in a session where it runs: " + SystemdEnableCommand
		return
	}
	units := r.units()
	if changed && r.systemctl(ctx, res, "daemon-reload") != nil {
		return
	}
	if err := r.systemctl(ctx, res, append([]string{"enable"}, units...)...); err != nil {
		return
	}
	res.AtLogin, res.Restarts = true, true
	if !r.Now {
		res.Reason = "enabled for the next login; not started now: " + SystemdEnableCommand
		return
	}
	verb := "start"
	if changed {
		verb = "restart" // a new socket list or binary: both units take it
	}
	if r.systemctl(ctx, res, append([]string{verb}, units...)...) == nil {
		res.Running = true
	}
}

// units are the systemd units of r: each socket unit (when there are
// sockets) before its service; the proxy process's when it is apart.
func (r resolved) units() []string {
	s := r.spec()
	var out []string
	if s.Control != "" || s.Role == Daemon && s.holds() {
		out = append(out, SocketUnit)
	}
	out = append(out, UnitName)
	if s.Role == DaemonApart {
		out = append(out, ProxySocketUnit, ProxyUnit)
	}
	return out
}

// installedUnits are the systemd units whose files are there.
func (r resolved) installedUnits() []string {
	var out []string
	for _, u := range []string{SocketUnit, UnitName, ProxySocketUnit, ProxyUnit} {
		if _, err := os.Stat(filepath.Join(r.unitDir(), u)); err == nil {
			out = append(out, u)
		}
	}
	return out
}

// systemctl runs `systemctl --user args` and notes it in res; a failure
// becomes res.Reason.
func (r resolved) systemctl(ctx context.Context, res *Result, args ...string) error {
	args = append([]string{"--user"}, args...)
	return r.step(ctx, res, "systemctl", args...)
}

func (r resolved) step(ctx context.Context, res *Result, name string, args ...string) error {
	line := name + " " + strings.Join(args, " ")
	out, err := r.run(ctx, name, args...)
	if err != nil {
		res.Reason = fmt.Sprintf("`%s` failed: %v: %s", line, err, strings.TrimSpace(string(out)))
		return err
	}
	res.Did = append(res.Did, line)
	return nil
}

// launchdOn loads the LaunchAgent with Now (launchd starts it at once:
// RunAtLoad), replacing a loaded one whose file changed; without Now
// launchd loads it at the next login.
func (r resolved) launchdOn(ctx context.Context, res *Result, changed bool) {
	res.AtLogin, res.Restarts = true, true
	if r.goos != "darwin" {
		res.Reason = "launchd is macOS's: the LaunchAgent is written, and loads at the next login there"
		return
	}
	if !r.Now {
		res.Reason = "loaded by launchd at the next login; not started now: launchctl bootstrap " + r.domain() + " " + r.path()
		return
	}
	res.Running = r.load(ctx, res, BundleID, r.path(), changed)
	if _, err := os.Stat(r.proxyPath()); err == nil {
		res.Running = r.load(ctx, res, ProxyLabel, r.proxyPath(), changed) && res.Running
	}
}

// load loads the LaunchAgent at path (label), replacing a loaded one when
// its file changed; it reports whether it is loaded now.
func (r resolved) load(ctx context.Context, res *Result, label, path string, changed bool) bool {
	target := r.domain() + "/" + label
	if _, err := r.run(ctx, "launchctl", "print", target); err == nil {
		if !changed {
			return true
		}
		if r.step(ctx, res, "launchctl", "bootout", target) != nil {
			return false
		}
	}
	return r.step(ctx, res, "launchctl", "bootstrap", r.domain(), path) == nil
}

// domain is launchd's domain of this user's GUI session.
func (r resolved) domain() string { return "gui/" + strconv.Itoa(os.Getuid()) }

// run runs a command (Options.Run, or the real one).
func (r resolved) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	if r.Run != nil {
		return r.Run(ctx, name, args...)
	}
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "HOME="+r.home)
	for _, k := range []string{"XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS"} {
		cmd.Env = append(cmd.Env, k+"="+r.getenv(k))
	}
	return cmd.CombinedOutput()
}

// Unsupervise disables the supervisor and removes its files: systemctl
// --user disable (with --now when o.Now: the supervised daemon stops), or
// launchctl bootout of the LaunchAgents when o.Now. What it could not ask
// of the supervisor is Result.Reason.
func Unsupervise(ctx context.Context, o Options) (Result, error) {
	r, err := resolve(o)
	if err != nil {
		return Result{Kind: r.kind}, err
	}
	res := Result{Kind: r.kind}
	args := []string{"disable"}
	if r.Now {
		args = append(args, "--now")
	}
	if !r.halt(ctx, &res, r.Now, args...) && r.kind == Systemd && !userSystemd(r.getenv) {
		res.Reason = "no systemd user manager runs for this user here: units it still runs stop with: " + SystemdDisableCommand
	}
	if err := r.remove(); err != nil {
		return res, err
	}
	res.Did = append(res.Did, "removed "+r.path())
	if r.kind == Systemd && userSystemd(r.getenv) {
		_ = r.systemctl(ctx, &res, "daemon-reload")
	}
	return res, nil
}

// Stop stops the supervised watchdog now and leaves it started at the
// next login (the tray's Quit: an exit alone is restarted a second
// later): `systemctl --user stop --no-block` of every installed unit, or
// `launchctl bootout` of the proxy process's LaunchAgent, then the
// daemon's, which launchd loads again at the next login. Nothing is
// disabled and no file changes. What it could not ask of the supervisor,
// or why there is none to ask, is Result.Reason.
//
// The socket units stop too, not only the services: one left listening
// starts its service again on the next connection, the daemon at the
// next `watchdog status`, the proxy process at a host's next call, with
// no daemon watching it. Quit means stopped until the next login or
// `watchdog autostart enable`, as in spawn mode, where the daemon ends
// its proxy process and closes the proxies' sockets: hosts' calls are
// refused meanwhile, and `watchdog status` says no daemon runs. The
// proxy service is named as well, though its StopPropagatedFrom= would
// stop it with the daemon's: the stop does not hang on that line.
//
// --no-block: the daemon that asks is in the unit it stops, and systemd
// signals every process of that unit, the systemctl asking included;
// the ask returns once the stop is queued.
func Stop(ctx context.Context, o Options) (Result, error) {
	r, err := resolve(o)
	if err != nil {
		return Result{Kind: r.kind}, err
	}
	res := Result{Kind: r.kind, Files: r.present()}
	if !r.halt(ctx, &res, true, "stop", "--no-block") {
		res.Reason = r.nothingToStop()
	}
	return res, nil
}

// halt asks r's supervisor to stop what r's files run: where systemd's
// user manager runs, `systemctl --user args… UNITS` of the installed
// units; on macOS, when boot, `launchctl bootout` of the proxy process's
// LaunchAgent, then the daemon's (last: the daemon itself may be asking,
// and ends with it). It reports whether it asked anything; what failed is
// res.Reason.
func (r resolved) halt(ctx context.Context, res *Result, boot bool, args ...string) bool {
	switch {
	case r.kind == Systemd && userSystemd(r.getenv):
		units := r.installedUnits()
		if len(units) == 0 {
			return false
		}
		_ = r.systemctl(ctx, res, append(args, units...)...)
	case r.kind == LaunchAgent && r.goos == "darwin" && boot:
		if exists(r.proxyPath()) {
			_ = r.step(ctx, res, "launchctl", "bootout", r.domain()+"/"+ProxyLabel)
		}
		_ = r.step(ctx, res, "launchctl", "bootout", r.domain()+"/"+BundleID)
	default:
		return false
	}
	return true
}

// nothingToStop says why Stop asked no supervisor.
func (r resolved) nothingToStop() string {
	switch {
	case r.kind == Systemd && userSystemd(r.getenv):
		return "no unit of the watchdog is installed in " + r.unitDir() + ": systemd has none of it to stop"
	case r.kind == Systemd:
		return "no systemd user manager runs for this user here: where one does, stop the watchdog with: " + Systemd.StopCommand()
	case r.kind == LaunchAgent:
		return "launchd is macOS's: no LaunchAgent to boot out here"
	}
	return "no supervisor runs the watchdog here (the XDG entry only starts it at a desktop login): nothing to ask, its exit stops it"
}
