package health

import (
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// ServerConfig is what the model needs to know of a configured server.
type ServerConfig struct {
	Name        string
	URL         string
	IdleTimeout time.Duration // configured; the server's own word or behaviour overrides it
	// ProxyURL, when set, is where the host reaches the server through the
	// watchdog's proxy, which sees every call and heals a loss itself
	// (ProxyHealed). No session in the store or the logs is the host's own
	// there.
	ProxyURL string
}

// Config is the model's view of the configuration.
type Config struct {
	HostName   string
	ClientName string // clientInfo.name of the host's sessions
	// HostWatched: a process watcher reports the host. Until its first
	// report no session is known to be the host's, so none is kept warm.
	HostWatched bool
	// Behaviour is what the host's profile says its client does after each
	// answer a server gives for a lost session: where it heals itself, its
	// losses say so and nothing heals them.
	Behaviour host.Behaviour
	// OneShot: the host runs one process per prompt; a new process is a
	// new run, never a restart.
	OneShot bool
	// Patchable: the host's client can carry the watchdog's fix. Whether
	// it heals is then the patch's state, never learned from a recovery.
	Patchable bool
	Servers   []ServerConfig
}

// Model holds the health of one host and its servers. It is not safe for
// concurrent use: one goroutine owns it and feeds it observations in
// order.
type Model struct {
	cfg   Config
	host  hostState
	words *hostWords // shared with every server
	// beaconLive: a live patched client's beacon names what the host holds.
	beaconLive bool
	beaconPID  int32 // the live beacon's writer: another one is a new client
	servers    map[string]*server
	order      []string     // servers in config order, for stable output
	unplaced   unplacedLoss // the last host-log loss that named no server
	restart    hostRestart  // the watchdog's restart of the host under way (host.go)
}

type hostState struct {
	known   bool // a process watcher has reported at least once
	running bool
	pid     int32
	started time.Time
	began   time.Time // precise start, zero when unknown
}

type server struct {
	cfg      ServerConfig
	timeouts idleKnown
	store    storeSeen
	sessions map[string]*session
	incident *incident
	// lastLegacy: when its log last rejected a legacy header.
	lastLegacy time.Time
	down       downState
	era        eraState
	asked      askedState
	held       *Held     // the beacon's entry for this server; nil: none
	healAt     time.Time // the last heal we started: the client may act on it late
	proc       procSeen
	flap       flap // how often its incidents open
	proxy      proxySeen
	words      *hostWords // the model's
	reasons    reasonsState
}

// idleKnown is what is known of a server's idle timeout.
type idleKnown struct {
	announced time.Duration // from the server's log
	learned   time.Duration // from the idle time at which sessions vanish
	vanished  []time.Duration
}

// storeSeen is what the server's session store said.
type storeSeen struct {
	has   bool                 // a good snapshot has arrived and the store still exists
	ever  bool                 // a snapshot has ever arrived: later ones are diffed, not a baseline
	err   bool                 // the last read failed; reported once per streak
	trunc bool                 // the last snapshot was truncated; reported once per streak
	gone  map[string]time.Time // ids that left the store: a later "not found" for one is old news
}

// downState: the last request of ours got no answer, since when.
type downState struct {
	is    bool
	since time.Time // when is was last set
}

// eraState is the server's protocol era as last learned ("" unknown);
// stale: it was down since, and may come back in another era;
// bridgeTold: its proxy's bridge was journaled (once a run); stateless:
// a 2026-07-28 server, with no sessions.
type eraState struct {
	era        string
	stale      bool
	bridgeTold bool
	stateless  bool
}

// askedState is how the server answers a session it does not know (a
// 404 with a JSON-RPC error or plain text, or a 400), "" until the
// watchdog asked; at is when the answer came; echoLeft: the question's
// echo in the log is yet to come.
type askedState struct {
	lostAnswer host.Answer
	at         time.Time
	echoLeft   bool
}

// procSeen: serverStarted is when the process serving the port started,
// as of the last snapshot; restartAt is when it was last seen to restart,
// and restarts counts the restarts seen. Which restart a session survived
// is kept as that count, not a time: a clock set back between two
// restarts reads the second one's start before the first one's.
type procSeen struct {
	serverStarted, restartAt time.Time
	restarts                 int
}

// proxySeen: viaProxy: sessions a proxy of the same server opened
// upstream for its hosts, and when it said so. They are the proxy's,
// whatever client name they carry. releasedByProxy: those of them the
// proxy ended itself (its host idle past the timeout, or the cap), and
// when it said so: their end is the proxy's DELETE, not an expiry.
type proxySeen struct {
	viaProxy        map[string]time.Time
	releasedByProxy map[string]time.Time
}

// reasonsState: tellsReasons: its log has said why it ended a session
// (closed.go); awaiting: sessions gone from its store past their timeout
// whose end waits a moment for that word (reasonWait).
type reasonsState struct {
	tellsReasons bool
	awaiting     map[string]awaitedEnd
}

type session struct {
	id, client   string
	created      time.Time // from the store, or when first seen
	lastActivity time.Time // from the store, or when first seen / last changed
	knownActive  bool      // lastActivity came from the store or a ping of ours
	atRisk       bool
	restartSeen  int // the server restarts (server.proc.restarts) this session was seen to survive
	// restored: known only from the last run's saved state, not yet seen
	// in this run's store nor answering a ping: it may have ended while
	// the daemon was down, so it proves no recovery.
	restored  bool
	seenUntil time.Time // restored: the last run saw it alive until then
}

// incident is an open loss on a server: its host session is gone and not yet
// replaced. One incident gives one session_lost and one recovered.
type incident struct {
	since   time.Time
	session string    // the lost session's full id; "" when unknown
	healing Strategy  // the strategy under way, "" when none
	due     time.Time // when the strategy must have recovered the session (zero: no deadline)
	// candidate is a new session the client holds that must answer a ping
	// before it counts as the recovery.
	candidate string
	// repeats counts the losses told again while it was open; lastRepeat
	// is the latest.
	repeats    int
	lastRepeat time.Time
	// hostPID is the host process that lost the session (0: unknown): a
	// new session from that same run is the host healing itself.
	hostPID int32
}

// differs reports whether session id, created at created (zero: unknown),
// is certainly not the lost one. When the lost id is unknown (a loss read
// back from the journal, or a log line that named none) only a session
// created after the loss is certainly another.
func (in *incident) differs(id string, created time.Time) bool {
	if in.session != "" {
		return id != in.session
	}
	return created.After(in.since)
}

// New returns a model for cfg.
func New(cfg Config) *Model {
	m := &Model{cfg: cfg, servers: make(map[string]*server, len(cfg.Servers))}
	m.words = &hostWords{name: cfg.HostName, client: cfg.ClientName, behaviour: cfg.Behaviour,
		seen: map[host.Answer]bool{}, host: &m.host, patched: &m.beaconLive}
	for _, sc := range cfg.Servers {
		m.servers[sc.Name] = &server{cfg: sc, sessions: map[string]*session{}, store: storeSeen{gone: map[string]time.Time{}},
			proxy:   proxySeen{viaProxy: map[string]time.Time{}, releasedByProxy: map[string]time.Time{}},
			reasons: reasonsState{awaiting: map[string]awaitedEnd{}}, words: m.words}
		m.order = append(m.order, sc.Name)
	}
	return m
}

// Apply feeds one observation made at now and returns the events it
// causes. Every event carries the log line an observation read from a log
// came from (its Source), so the journal records which log position each
// consequence came from (a restart resumes after it). A nil observation
// causes nothing.
func (m *Model) Apply(o Observation, now time.Time) []Event {
	if o == nil {
		return nil
	}
	evs := m.apply(o, now)
	if l, ok := o.(interface{ logLine() LogLine }); ok {
		for i := range evs {
			evs[i] = withSource(evs[i], l.logLine().Source)
		}
	}
	k, _ := o.(KeepWarmAnswered)
	m.sourced(evs, k.Server, k.NamedBy)
	return evs
}

// apply dispatches o on its type to its kind's rule. What concerns the
// host or the machine is here; the rest concerns a configured server
// (applyServer), and one the model does not know causes nothing.
func (m *Model) apply(o Observation, now time.Time) []Event {
	switch o := o.(type) {
	case StdioSeen:
		return nil // the stdio servers' reports are Stdios'

	case HostUp:
		return m.hostUp(o, now)
	case HostDown:
		return m.hostDown(now)
	case Woke:
		return m.woke(o.Gap, now)
	case Warning:
		return []Event{{Time: now, Kind: EvWarning, Server: o.Server, Detail: o.Detail}}
	case BeaconSeen:
		return m.beacon(o, now)
	case SessionLost:
		if o.Server == "" {
			return m.unattributedLost(o, now)
		}
	}
	s, ok := m.servers[o.server()]
	if !ok {
		return nil
	}
	return m.applyServer(s, o, now)
}

// applyServer dispatches o, which concerns s, on its type to its kind's
// rule.
func (m *Model) applyServer(s *server, o Observation, now time.Time) []Event {
	switch o := o.(type) {
	case StoreSnapshot:
		return m.storeSnapshot(s, o, now)
	case SessionClosed:
		return m.sessionClosed(s, o, now)
	case StoreGone:
		return s.storeGone(now, o.Detail)
	case StoreError:
		return s.storeError(now, o.Detail)
	case SessionLost:
		return m.logLost(s, o, now)
	case Reconnected:
		return m.reconnected(s, o, now)
	case IdleTimeoutAnnounced:
		s.startLine(o.LogLine, now)
		return s.announce(o.Timeout, now)
	case LegacyHeaderRejected:
		return s.legacyRejected(o, now)
	case KeepWarmAnswered:
		return m.keepWarmResult(s, o, now)
	case LivenessAnswered:
		return m.liveness(s, o, now)
	case HealStarted:
		m.restartStarted(o, now)
		return s.healStarted(o, now)
	case HealFailed:
		if o.Strategy == StrategyHostRestart {
			m.restart = hostRestart{} // what comes next is not its doing
		}
		return s.healFailed(o.Strategy, o.Detail, now)
	case ProxyHealed:
		return s.proxied(o, now)
	case ProxyUpstream:
		s.proxyOpened(o.Session, now)
	case ProxyReleased:
		s.proxyReleased(o.Session, now)
	case ProxyBridging:
		return s.proxyBridging(now)
	case ProxyAttached:
		return s.proxyAttached(o, now)
	}
	return nil
}

// woke: the wall clock jumped by gap (negative: set back); every session
// is judged again.
func (m *Model) woke(gap time.Duration, now time.Time) []Event {
	if gap < 0 {
		m.moveBack(now, -gap)
	}
	m.clampActivity(now)
	gap = gap.Abs()
	ev := Event{Time: now, Kind: EvWoke, Extra: map[string]any{"gap_seconds": int64(gap.Seconds())},
		Detail: fmt.Sprintf("the wall clock jumped %s (sleep or wake); re-evaluating every session", gap.Round(time.Second))}
	return append([]Event{ev}, m.Tick(now)...)
}

// RestoreIncident reopens a loss the journal recorded before a restart, so
// the recovery that follows is still reported as one. sessionID is the lost
// session's full id from the private state, or "" when it is not known: a
// masked id must never stand in for it (it would differ from every real id).
func (m *Model) RestoreIncident(serverName, sessionID string, since time.Time) {
	if s, ok := m.servers[serverName]; ok && s.incident == nil {
		s.incident = &incident{since: since, session: sessionID}
	}
}

// RestoreHealStarted tells the model when the journal says a heal of
// serverName last started, before a restart: the client may act on that
// heal's trigger after this run began (healActGrace), retiring a session
// it had got by itself, which is then no loss.
func (m *Model) RestoreHealStarted(serverName string, at time.Time) {
	if s, ok := m.servers[serverName]; ok && at.After(s.healAt) {
		s.healAt = at
	}
}

// Tick re-evaluates time-dependent state (idle sessions nearing expiry).
func (m *Model) Tick(now time.Time) []Event {
	m.clampActivity(now)
	var evs []Event
	for _, name := range m.order {
		evs = append(evs, m.tickServer(m.servers[name], now)...)
	}
	m.sourced(evs, "", "")
	return evs
}

func (m *Model) tickServer(s *server, now time.Time) []Event {
	evs := m.awaitedExpired(s, now, false)
	cur := m.currentSession(s)
	evs = append(evs, s.healOverdue(now)...)
	evs = append(evs, s.flapOver(now)...)
	for _, sess := range s.sessions {
		risky := s.atRisk(sess, now)
		if risky == sess.atRisk {
			continue
		}
		sess.atRisk = risky
		// In its last second the loss, not the risk, is the news.
		if risky && sess == cur && s.incident == nil && s.timeout()-s.idle(sess, now) >= atRiskLastMoment {
			evs = append(evs, s.atRiskEvent(sess, now))
		}
	}
	return evs
}

func withSource(ev Event, src LogPosition) Event {
	if src != (LogPosition{}) {
		ev.Log = src
	}
	return ev
}

// clampActivity pulls activity times that lie ahead of now back to now: after
// the wall clock was set back, a session last used "in the future" would
// otherwise look idle for nothing until the clock caught up, and would not
// be kept warm meanwhile. An incident's start likewise.
// moveBack takes the wall clock set back by back: a time still ahead of
// now was read on the clock before the jump, so it lies back earlier on
// the clock as it now reads (a time behind now may come from another
// clock, a server's store, and is left alone).
func (m *Model) moveBack(now time.Time, back time.Duration) {
	for _, s := range m.servers {
		for _, sess := range s.sessions {
			if sess.lastActivity.After(now) {
				sess.lastActivity = sess.lastActivity.Add(-back)
			}
		}
		if s.incident != nil && s.incident.since.After(now) {
			s.incident.since = s.incident.since.Add(-back)
		}
	}
}

func (m *Model) clampActivity(now time.Time) {
	for _, s := range m.servers {
		for _, sess := range s.sessions {
			if sess.lastActivity.After(now) {
				sess.lastActivity = now
			}
		}
		if s.incident != nil && s.incident.since.After(now) {
			s.incident.since = now // else its recovery would take a negative time
		}
	}
}
