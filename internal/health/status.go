package health

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// Status is the contract's status document. Session ids in it are masked:
// it is made to leave the process.
type Status struct {
	Servers []ServerStatus `json:"servers"`
	Host    HostStatus     `json:"host"`
	// Hosts are the MCP hosts found on this machine and what protects each
	// of their servers (the daemon adds them from the hosts' config files).
	Hosts []HostSummary `json:"hosts,omitempty"`
	// Daemon is the running daemon itself (the daemon adds it): what
	// `watchdog hosts adopt` must write to reach it.
	Daemon *DaemonStatus `json:"daemon,omitempty"`
}

// DaemonStatus says which daemon answered: its process and the config
// file it runs with ("" when it runs with none).
type DaemonStatus struct {
	PID        int    `json:"pid"`
	ConfigFile string `json:"config_file"`
	StateDir   string `json:"state_dir"`
	// Sockets says which supervisor passed the daemon its listening
	// sockets and holds them while it restarts ("systemd", "launchd");
	// absent when it opened every one itself.
	Sockets string `json:"sockets,omitempty"`
}

// HostSummary is one host found on this machine, as `watchdog hosts` has it,
// or one the config watches.
type HostSummary struct {
	Name    string              `json:"name"`
	Servers []HostServerSummary `json:"servers"`
	// Watched: the config names it ([host] or a [[host]] table); Running
	// and PID are then what its process watcher last saw.
	Watched bool  `json:"watched,omitempty"`
	Running bool  `json:"running,omitempty"`
	PID     int32 `json:"pid,omitempty"`
}

// HostServerSummary is one of a found host's servers.
type HostServerSummary struct {
	Name       string `json:"name"`
	Transport  string `json:"transport"`
	Protection string `json:"protection"`
	Fix        string `json:"fix,omitempty"`
}

// Exposed lists the names of h's servers nothing protects.
func (h HostSummary) Exposed() []string {
	var out []string
	for _, s := range h.Servers {
		if s.Protection == "exposed" {
			out = append(out, s.Name)
		}
	}
	return out
}

// ServerStatus is one server in Status.
type ServerStatus struct {
	Name string `json:"name"`
	// Transport is "stdio" (TransportStdio) for a server a stdio
	// supervisor runs for a host, known from its reports and described in
	// Stdio; absent for a configured HTTP server.
	Transport string       `json:"transport,omitempty"`
	Stdio     *StdioStatus `json:"stdio,omitempty"`
	// URL as mask.URL shows it: user info and query values redacted.
	URL  string `json:"url"`
	Mode Mode   `json:"mode"`
	// Era is its protocol era: legacy, both eras or modern-only (absent
	// while unknown). A legacy host reaches a modern-only server only
	// through the watchdog's proxy, which bridges the eras (ProxyBridges).
	Era                string `json:"era,omitempty"`
	State              State  `json:"state"`
	IdleTimeoutSeconds int64  `json:"idle_timeout_seconds"`
	// LostAnswer is the HTTP status the server answers a session it does
	// not know with (404 as the spec says, or 400); absent until asked.
	// LostAnswerBody says what came with a 404: "json-rpc" (an error
	// object, the TypeScript and Python SDKs') or "text" (the Go SDK's).
	LostAnswer     int    `json:"lost_answer,omitempty"`
	LostAnswerBody string `json:"lost_answer_body,omitempty"`
	// Source is where the judgement of the host's session comes from.
	Source IdentitySource `json:"source"`
	// ProxyURL is the URL to give the host in place of URL, when the
	// watchdog proxies the server.
	ProxyURL string `json:"proxy_url,omitempty"`
	// ProxyListen is the proxy's address, and ProxyServed whether the
	// daemon accepts on it now (the daemon fills both in); when it does
	// not, ProxyProblem says why (the port is held by another program).
	// A host pointed at a proxy that is not served has every call fail.
	ProxyListen  string `json:"proxy_listen,omitempty"`
	ProxyServed  bool   `json:"proxy_served,omitempty"`
	ProxyProblem string `json:"proxy_problem,omitempty"`
	// ProxySocket names the supervisor that holds the proxy's socket
	// ("systemd", "launchd"): it stays open while the daemon restarts, so
	// hosts' calls then wait instead of failing. Absent: the daemon's own.
	ProxySocket string `json:"proxy_socket,omitempty"`
	// ProxyBridges: the server is modern-only and its proxy serves the
	// hosts the legacy era over it (the daemon fills it in).
	ProxyBridges bool            `json:"proxy_bridges,omitempty"`
	Sessions     []SessionStatus `json:"sessions"`
	// ProxySessions are the hosts' sessions the proxy holds (the daemon
	// adds them: the proxy, not the model, owns them).
	ProxySessions []ProxySession `json:"proxy_sessions,omitempty"`
	// SessionsOmitted counts the sessions left out of Sessions when there
	// were more than MaxStatusSessions; absent when none were.
	SessionsOmitted int `json:"sessions_omitted,omitempty"`
}

// MaxStatusSessions bounds the sessions listed per server, so the status
// document stays a few hundred KB whatever a store holds. The host's
// current session and the ones not healthy are listed first, then the
// least idle.
const MaxStatusSessions = 1_000

// ProxySession is one host session of a server's proxy, ids masked.
type ProxySession struct {
	ID          string `json:"id"`                 // the host's
	Upstream    string `json:"upstream,omitempty"` // the server's; absent while none
	Client      string `json:"client"`
	IdleSeconds int64  `json:"idle_seconds"`
	Streaming   bool   `json:"streaming"`         // its GET stream is open
	Bridged     bool   `json:"bridged,omitempty"` // served over the proxy's bridge to a modern-only server
}

// SessionStatus is one tracked session in Status.
type SessionStatus struct {
	ID               string `json:"id"` // masked
	Client           string `json:"client"`
	IdleSeconds      int64  `json:"idle_seconds"`
	ExpiresInSeconds int64  `json:"expires_in_seconds"`
	State            State  `json:"state"`
	Current          bool   `json:"current,omitempty"` // the host's current session
	// Host names whose current session it is, when several hosts are watched.
	Host string `json:"host,omitempty"`
}

// HostStatus is the host in Status. Patch is filled in by the caller.
type HostStatus struct {
	Name    string `json:"name"`
	Running bool   `json:"running"`
	PID     int32  `json:"pid,omitempty"`
	Patch   string `json:"patch,omitempty"`
	// OneShot: the host runs one process per prompt; nothing restarts it.
	OneShot bool `json:"one_shot,omitempty"`
}

// Status renders the model at now.
func (m *Model) Status(now time.Time) Status {
	st := Status{Host: HostStatus{Name: m.cfg.HostName, Running: m.host.running, PID: m.host.pid, OneShot: m.cfg.OneShot}}
	for _, name := range m.order {
		st.Servers = append(st.Servers, m.serverStatus(m.servers[name], now))
	}
	return st
}

func (m *Model) serverStatus(s *server, now time.Time) ServerStatus {
	// The URL may carry a credential (a query token): status leaves the process.
	ss := ServerStatus{Name: s.cfg.Name, URL: mask.URL(s.cfg.URL), Mode: s.mode(), Era: s.era.era, State: m.serverState(s, now), LostAnswer: s.asked.lostAnswer.Status(), LostAnswerBody: s.asked.lostAnswer.Body(),
		IdleTimeoutSeconds: int64(s.timeout().Seconds()), Source: m.source(s), ProxyURL: s.cfg.ProxyURL, Sessions: []SessionStatus{}}
	cur := m.currentSession(s)
	for _, sess := range s.sessions {
		idle := s.idle(sess, now)
		state := Healthy
		if s.atRisk(sess, now) {
			state = AtRisk
		}
		if sess == cur && s.incident != nil {
			state = Lost
		}
		ss.Sessions = append(ss.Sessions, SessionStatus{ID: mask.ID(sess.id), Client: sess.client,
			IdleSeconds: int64(idle.Seconds()), ExpiresInSeconds: int64(max(s.timeout()-idle, 0).Seconds()),
			State: state, Current: sess == cur})
	}
	if n := len(ss.Sessions); n > MaxStatusSessions {
		slices.SortStableFunc(ss.Sessions, byImportance)
		clear(ss.Sessions[MaxStatusSessions:])
		ss.Sessions, ss.SessionsOmitted = ss.Sessions[:MaxStatusSessions], n-MaxStatusSessions
	}
	slices.SortFunc(ss.Sessions, func(a, b SessionStatus) int {
		return strings.Compare(a.Client+a.ID, b.Client+b.ID)
	})
	return ss
}

// byImportance orders what a status keeps when it cannot list all: the
// host's current session, then sessions not healthy, then the least idle.
func byImportance(a, b SessionStatus) int {
	switch {
	case a.Current != b.Current:
		if a.Current {
			return -1
		}
		return 1
	case (a.State == Healthy) != (b.State == Healthy):
		if a.State != Healthy {
			return -1
		}
		return 1
	case a.IdleSeconds != b.IdleSeconds:
		return cmp.Compare(a.IdleSeconds, b.IdleSeconds)
	}
	return strings.Compare(a.Client+a.ID, b.Client+b.ID)
}

func (s *server) mode() Mode {
	if s.era.stateless {
		return Stateless
	}
	if s.store.has || s.timeouts.announced > 0 || len(s.sessions) > 0 {
		return Stateful
	}
	return ModeUnknown
}

func (m *Model) serverState(s *server, now time.Time) State {
	switch {
	case s.down.is:
		return Down
	case s.incident != nil && s.incident.healing != "":
		return Healing
	case s.incident != nil:
		return Lost
	case s.era.stateless:
		return Healthy
	case !s.store.has && len(s.sessions) == 0:
		return Unknown
	}
	if cur := m.currentSession(s); cur != nil && s.atRisk(cur, now) {
		return AtRisk
	}
	if !s.store.has {
		return Unknown
	}
	return Healthy
}

// Incident reports the open loss on a server, for the journal replay and
// the healer: the session it concerns and since when.
func (m *Model) Incident(server string) (sessionID string, since time.Time, open bool) {
	s, ok := m.servers[server]
	if !ok || s.incident == nil {
		return "", time.Time{}, false
	}
	return s.incident.session, s.incident.since, true
}
