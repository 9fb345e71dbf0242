package daemon

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
	"github.com/mcpwatchdog/watchdog/healer/restart"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/proxyproc"
)

// hostWatch is one watched host: its model (a health.Model is one host and
// the servers), its heal machinery, keep-warm schedule and process look.
// The main host (config.MainHost) comes first. Only it has the client
// patch, the beacons and the recovery triggers, and only its model
// journals what belongs to the servers or the machine (server_up, a store
// warning, a wake): every model sees the servers, one speaks for them.
type hostWatch struct {
	cfg   config.Host
	prof  host.Profile
	main  bool
	index int // in daemon.watched: its log lines' tag
	model *health.Model
	heal  *healing
	warm  *healer.KeepWarm
	look  chan struct{} // asks its process watcher to look now
	// healthySince: since when none of its sessions has had an open incident.
	healthySince time.Time
}

// watchedProcess: the config names the host's process or port to watch.
func (h *hostWatch) watchedProcess() bool { return h.cfg.Process != "" || h.cfg.Port != 0 }

// canRestart: a restart argv is configured and the host is one to
// restart (a host that runs one process per prompt never is).
func (h *hostWatch) canRestart() bool { return len(h.cfg.Restart) > 0 && !h.prof.OneShot }

// fileName is one of the host's state files (restart.HostFileName).
func (h *hostWatch) fileName(base, ext string) string {
	return restart.HostFileName(base, ext, h.cfg.Name, h.main)
}

// newHostWatches makes one watch per configured host, the main one first.
func newHostWatches(cfg config.Config, secret string) []*hostWatch {
	mainName := cfg.MainHost().Name
	hosts := slices.Clone(cfg.Hosts)
	if len(hosts) == 0 {
		hosts = []config.Host{cfg.MainHost()}
	}
	slices.SortStableFunc(hosts, func(a, b config.Host) int {
		return boolRank(b.Name == mainName) - boolRank(a.Name == mainName)
	})
	var servers []health.ServerConfig
	for _, s := range cfg.Servers {
		servers = append(servers, health.ServerConfig{Name: s.Name, URL: s.URL, IdleTimeout: s.IdleTimeout.Duration,
			ProxyURL: proxyproc.URL(s, secret)})
	}
	out := make([]*hostWatch, len(hosts))
	for i, hc := range hosts {
		h := &hostWatch{cfg: hc, prof: hc.Profile(), main: i == 0, index: i, warm: healer.NewKeepWarm(), look: make(chan struct{}, 1)}
		h.model = health.New(health.Config{HostName: hc.Name, ClientName: hc.ClientName, HostWatched: h.watchedProcess(),
			Behaviour: h.prof.Behaviour, OneShot: h.prof.OneShot, Patchable: h.prof.Patchable(), Servers: servers})
		out[i] = h
	}
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// mainHost is the first watched host (config.MainHost).
func (d *daemon) mainHost() *hostWatch { return d.watched[0] }

// watchList is the watched hosts, the main one first (config.MainHost):
// who takes what, by host, client, session or log tag.
type watchList []*hostWatch

// named is the watched host of that name (as host.Fold compares), nil
// when none is.
func (w watchList) named(name string) *hostWatch {
	for _, h := range w {
		if host.Fold(h.cfg.Name) == host.Fold(name) {
			return h
		}
	}
	return nil
}

// clientHost is the watched host whose client is client; the main host
// takes every other client's sessions (it tells them apart from its own).
func (w watchList) clientHost(client string) *hostWatch {
	for _, h := range w[1:] {
		if host.ClientMatch(h.cfg.ClientName, client) {
			return h
		}
	}
	return w[0]
}

// owner is the watched host whose model tracks session on server, else
// the main host.
func (w watchList) owner(server, session string) *hostWatch {
	for _, h := range w[1:] {
		if h.model.Owns(server, session) {
			return h
		}
	}
	return w[0]
}

// routed is an observation as one host's model takes it.
type routed struct {
	h *hostWatch
	o health.Observation
}

// route says which models take o: from's alone when it came from one
// host (its process, its log, its heal); a store's sessions each to the
// host of its client, and a loss the proxy met to the host whose client
// met it; what names a session to its owner; what is the servers' or the
// machine's to every model; the rest (beacons, warnings) to the main
// host.
func (w watchList) route(o health.Observation, from *hostWatch) []routed {
	switch {
	case from != nil:
		return []routed{{from, o}}
	case len(w) == 1:
		return []routed{{w[0], o}}
	}
	switch t := o.(type) {
	case health.StoreSnapshot:
		return w.splitSnapshot(t)
	case health.StoreGone, health.StoreError, health.IdleTimeoutAnnounced, health.Woke, health.LivenessAnswered,
		health.ProxyUpstream, health.ProxyReleased:
		out := make([]routed, len(w))
		for i, h := range w {
			out[i] = routed{h, o}
		}
		return out
	case health.SessionLost:
		return []routed{{w.owner(t.Server, t.Session), o}}
	case health.SessionClosed:
		return []routed{{w.owner(t.Server, t.Session), o}}
	case health.Reconnected:
		return []routed{{w.owner(t.Server, t.Session), o}}
	case health.KeepWarmAnswered:
		return []routed{{w.owner(t.Server, t.Session), o}}
	case health.ProxyHealed:
		return []routed{{w.clientHost(t.Client), o}}
	}
	return []routed{{w[0], o}}
}

// splitSnapshot gives each host's model the store's sessions of its client,
// and the main host's every other one.
func (w watchList) splitSnapshot(sig health.StoreSnapshot) []routed {
	parts := make(map[*hostWatch][]health.StoreSession, len(w))
	for _, ss := range sig.Sessions {
		h := w.clientHost(ss.Client)
		parts[h] = append(parts[h], ss)
	}
	out := make([]routed, len(w))
	for i, h := range w {
		part := sig
		part.Sessions = parts[h]
		if part.Sessions == nil {
			part.Sessions = []health.StoreSession{}
		}
		out[i] = routed{h, part}
	}
	return out
}

// serversOwn: events of a kind only the main host's model journals, for
// they tell of a server or the machine, not of a host.
func serversOwn(ev health.Event) bool {
	switch ev.Kind {
	case health.EvServerUp, health.EvServerDown, health.EvServerMode, health.EvTimeoutLearned, health.EvWoke,
		health.EvLegacyHeaderRejected, health.EvWarning:
		return true
	}
	return false
}

// hostTagOf tags the i-th watched host's log lines; server logs are tagged
// with the server's name, which never starts with a NUL.
func hostTagOf(i int) string {
	if i == 0 {
		return hostTag
	}
	return hostTag + strconv.Itoa(i)
}

// hostOfTag is the watched host whose log tag is tag; nil for a server's.
func (w watchList) hostOfTag(tag string) *hostWatch {
	if !strings.HasPrefix(tag, hostTag) {
		return nil
	}
	for _, h := range w {
		if hostTagOf(h.index) == tag {
			return h
		}
	}
	return nil
}

// names lists the watched hosts' names, the main one first.
func (w watchList) names() []string {
	out := make([]string, len(w))
	for i, h := range w {
		out[i] = h.cfg.Name
	}
	return out
}
