package daemon

import (
	"slices"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
)

// modelStatus is the main host's model's status with every other host's
// sessions added to each server, and the server's state the worst any
// host's is in (a server where one host lost its session is lost).
func (d *daemon) modelStatus(now time.Time) health.Status {
	st := d.mainHost().model.Status(now)
	if len(d.watched) == 1 {
		return st
	}
	markCurrent(st.Servers, d.mainHost().cfg.Name)
	for _, h := range d.watched[1:] {
		other := h.model.Status(now)
		markCurrent(other.Servers, h.cfg.Name)
		for i := range st.Servers {
			for _, o := range other.Servers {
				if o.Name != st.Servers[i].Name {
					continue
				}
				st.Servers[i].Sessions = append(st.Servers[i].Sessions, o.Sessions...)
				st.Servers[i].SessionsOmitted += o.SessionsOmitted
				if stateRank(o.State) > stateRank(st.Servers[i].State) {
					st.Servers[i].State = o.State
				}
			}
		}
	}
	for i := range st.Servers {
		slices.SortFunc(st.Servers[i].Sessions, func(a, b health.SessionStatus) int {
			return strings.Compare(a.Client+a.ID, b.Client+b.ID)
		})
	}
	return st
}

// markCurrent names host on each server's current session: with several
// hosts, each has one.
func markCurrent(servers []health.ServerStatus, host string) {
	for i := range servers {
		for j := range servers[i].Sessions {
			if servers[i].Sessions[j].Current {
				servers[i].Sessions[j].Host = host
			}
		}
	}
}

// stateRank orders a session's states on one server from the best to the
// worst; down and unknown are the server's own, which every model agrees on.
func stateRank(s health.State) int {
	switch s {
	case health.AtRisk:
		return 1
	case health.Healing:
		return 2
	case health.Lost:
		return 3
	}
	return 0
}

// hostSummaries is the hosts found on this machine, each watched one with
// its process as its model knows it, and a watched host not found (no
// config file, not running) added.
func (d *daemon) hostSummaries() []health.HostSummary {
	out := slices.Clone(d.face.found)
	for _, h := range d.watched {
		pid, _, running := h.model.HostProcess()
		at := slices.IndexFunc(out, func(s health.HostSummary) bool { return host.Fold(s.Name) == host.Fold(h.prof.Name) })
		if at < 0 {
			out = append(out, health.HostSummary{Name: h.cfg.Name, Servers: []health.HostServerSummary{}})
			at = len(out) - 1
		}
		out[at].Watched, out[at].Running = true, running
		if running {
			out[at].PID = pid
		}
	}
	return out
}
