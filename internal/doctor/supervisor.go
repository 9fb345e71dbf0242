package doctor

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
)

// checkSupervisor says whether something restarts the daemon and holds
// its proxies' sockets while it is down: a host pointed at a proxy has
// every call fail while no daemon serves it. Only a config with proxies
// gets the finding.
func checkSupervisor(_ context.Context, rep *Report, o Options) {
	listens := autostart.ListensOf(o.Config)
	if len(listens) == 0 {
		return
	}
	ao := autostart.ForConfig(o.Supervisor, o.Config, o.Control)
	st, err := autostart.Status(ao)
	const check = "supervisor"
	switch {
	case err != nil:
		rep.Add(Finding{Check: check, Detail: "cannot tell what starts the daemon: " + err.Error()})
	case !st.Enabled && st.Kind == autostart.XDG:
		rep.Add(Finding{Check: check, Detail: "the proxies have no supervisor: nothing starts the daemon at login or restarts it, and hosts pointed at its proxies fail while it is down",
			Fix: "`watchdog autostart enable` (where systemd runs for you, or on macOS, it restarts the daemon and holds the sockets; elsewhere keep `watchdog run` running under a service manager of your own)"})
	case !st.Enabled:
		rep.Add(Finding{Check: check, Detail: fmt.Sprintf("the proxies have no supervisor: %s is not installed, so nothing starts the daemon at login or restarts it, and hosts pointed at its proxies fail while it is down", st.Path),
			Fix: "watchdog autostart enable"})
	case !st.Restarts:
		rep.Add(Finding{Check: check, Detail: fmt.Sprintf("the proxies have no supervisor: %s starts the daemon at login (%s) but nothing restarts it after an exit, and hosts pointed at its proxies fail while it is down", st.Path, st.Kind),
			Fix: "`watchdog autostart enable` where systemd runs for you; elsewhere keep `watchdog run` running under a service manager of your own"})
	default:
		rep.Add(supervisedFinding(check, st, ao))
	}
}

// supervisedFinding: a supervisor restarts the daemon; does it hold every
// proxy's socket?
func supervisedFinding(check string, st autostart.State, o autostart.Options) Finding {
	want, err := autostart.RenderSocket(autostart.Spec{Listen: o.Listen, Control: o.Control})
	var missing []string
	if err == nil {
		for _, s := range autostart.SocketsOf(autostart.Systemd, want) {
			if !slices.Contains(st.Sockets, s) {
				missing = append(missing, s)
			}
		}
	}
	switch {
	case len(missing) > 0:
		return Finding{Check: check, Detail: fmt.Sprintf("%s restarts the daemon, but does not hold the sockets of %s: hosts calling there while it restarts fail",
			st.Path, strings.Join(missing, ", ")), Fix: "watchdog autostart enable"}
	case st.Kind == autostart.Systemd && !st.Linked:
		return Finding{Check: check, Detail: st.Path + " is written but not enabled: nothing starts it at login",
			Fix: autostart.SystemdEnableCommand}
	}
	return Finding{Check: check, OK: true, Detail: fmt.Sprintf("%s (%s) starts the daemon at login and restarts it after every exit, holding %s meanwhile",
		st.Path, st.Kind, strings.Join(st.Sockets, ", "))}
}
