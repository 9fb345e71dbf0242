package autostart

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// What `watchdog autostart` says: its sentences, its status text and its
// JSON, beside the supervisor they describe.

// StartCommand is the command that starts the daemon under the
// supervisor of kind k now, rather than at the next login.
func (k Kind) StartCommand() string {
	if k == LaunchAgent {
		return "launchctl kickstart gui/$(id -u)/" + BundleID
	}
	return "systemctl --user start " + SocketUnit + " " + UnitName
}

// StopCommand stops the daemon under the supervisor of kind k now, with
// its proxy process and sockets, leaving them started at the next login
// (by hand, what Stop asks).
func (k Kind) StopCommand() string {
	if k == LaunchAgent {
		return "launchctl bootout gui/$(id -u)/" + ProxyLabel + "; launchctl bootout gui/$(id -u)/" + BundleID
	}
	return "systemctl --user stop " + SocketUnit + " " + UnitName + " " + ProxySocketUnit + " " + ProxyUnit
}

// SupervisionSentence says what starts and restarts the daemon.
func SupervisionSentence(restarts bool, proxies int) string {
	if restarts {
		return "starts the daemon at every login and restarts it after every exit; its proxies' and control sockets stay open meanwhile, " +
			"so a host's call waits for it instead of failing"
	}
	if proxies > 0 {
		return "the proxies have no supervisor: nothing restarts the daemon after an exit, and while it is down every call of a host pointed at its proxies fails"
	}
	return "nothing restarts the daemon after an exit"
}

// WriteStatus writes st for a person, as `watchdog autostart status`
// prints it; proxies is how many proxy listeners the config has.
func WriteStatus(w io.Writer, st State, proxies int) {
	switch {
	case !st.Enabled:
		fmt.Fprintf(w, "autostart disabled (%s): %s not present\n", st.Kind, st.Path)
	case st.PointsHere:
		fmt.Fprintf(w, "autostart enabled (%s): %s\nstarts this binary: %s\n", st.Kind, st.Path, st.Exe)
	default:
		fmt.Fprintf(w, "autostart enabled (%s): %s\nstarts %q, NOT this binary; point it here with: watchdog autostart enable%s\n",
			st.Kind, st.Path, st.Exe, st.Kind.Flag())
	}
	if st.Enabled {
		fmt.Fprintln(w, SupervisionSentence(st.Restarts, proxies))
		if len(st.Sockets) > 0 {
			fmt.Fprintf(w, "holds: %s\n", strings.Join(st.Sockets, ", "))
		}
		if !st.Current {
			fmt.Fprintf(w, "not current with the config: watchdog autostart enable%s\n", st.Kind.Flag())
		}
	}
	if st.Enabled && st.Kind == Systemd && !st.Linked {
		fmt.Fprintf(w, "not linked to the login yet: %s\n", SystemdEnableCommand)
	}
}

// Flag is the flag of `watchdog autostart enable` that picks kind k, with
// a leading space; "" for the kind picked without one.
func (k Kind) Flag() string {
	switch k {
	case Systemd:
		return " --systemd"
	case XDG:
		return " --xdg"
	}
	return ""
}

// JSON is `watchdog autostart --json`: the state, and what enable or
// disable did when res is not nil.
func JSON(st State, res *Result) []byte {
	v := map[string]any{
		"kind": st.Kind.String(), "path": st.Path, "enabled": st.Enabled, "exe": st.Exe,
		"points_here": st.PointsHere, "current": st.Current, "linked": st.Linked, "restarts": st.Restarts, "sockets": st.Sockets,
	}
	if res != nil {
		v["kind"], v["did"], v["at_login"], v["running"], v["reason"] = res.Kind.String(), res.Did, res.AtLogin, res.Running, res.Reason
		v["restarts"] = res.Restarts
	}
	b, _ := json.Marshal(v)
	return b
}

// WriteEnabled writes what `watchdog autostart enable` did, for a person:
// the files, the steps, what supervises the daemon, and, when a watchdog
// the supervisor did not start runs now (otherPID), when it takes over.
func WriteEnabled(w io.Writer, res Result, proxies, otherPID int) {
	fmt.Fprintf(w, "autostart enabled (%s): %s\n", res.Kind, strings.Join(res.Files, ", "))
	for _, d := range res.Did {
		fmt.Fprintf(w, "  %s\n", d)
	}
	fmt.Fprintln(w, SupervisionSentence(res.Restarts, proxies))
	switch {
	case otherPID != 0 && res.Restarts:
		fmt.Fprintf(w, "a watchdog the supervisor did not start runs now (pid %d): the supervisor takes over at the next login, "+
			"or at once when you stop that one and run: %s\n", otherPID, res.Kind.StartCommand())
	case res.Reason != "":
		fmt.Fprintln(w, res.Reason)
	}
}

// WriteDisabled writes what `watchdog autostart disable` did.
func WriteDisabled(w io.Writer, res Result) {
	for _, d := range res.Did {
		fmt.Fprintf(w, "autostart disabled: %s\n", d)
	}
	if res.Kind == Systemd {
		fmt.Fprintln(w, "a running daemon keeps running until: "+SystemdDisableCommand)
	}
	if res.Reason != "" {
		fmt.Fprintln(w, res.Reason)
	}
}
