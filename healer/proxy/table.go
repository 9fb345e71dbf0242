package proxy

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// stateVersion is the state file's format.
const stateVersion = 1

// maxStateFile bounds what is read of the state file.
const maxStateFile = 64 << 20

// session is one host session and the upstream session it rides on.
type session struct {
	// Fixed once made.
	hostID string
	init   json.RawMessage // the host's initialize params, replayed on a loss
	client string          // clientInfo.name from them

	// mu serialises replacing the upstream session: of the calls that
	// meet the same lost session, one opens the next.
	mu sync.Mutex

	// Guarded by table.mu.
	upstream string // "" while there is none (released, or lost)
	lost     string // the upstream a keep-warm ping found lost, until replaced
	protocol string // the negotiated MCP-Protocol-Version
	caps     lists  // the lists the server offers, to re-read after a loss
	last     time.Time
	pinged   time.Time   // the last keep-warm answer
	header   http.Header // what replays carry of the host's last headers (keptHeader; memory only)
	// bridged: the server is modern-only and the proxy serves this host
	// the legacy era over it (bridge.go); upstream is then always "".
	bridged  bool
	logLevel string // logging/setLevel's level, sent in each bridged request's _meta (memory only)
	// waiting: the host was answered from the last-known server while
	// the server was down; its upstream session is not open yet
	// (attach.go). served are the lists it was answered from there, by
	// method (memory only).
	waiting bool
	served  map[string]json.RawMessage
	streams []*stream // the host's open GET streams
	pending []string  // notifications for the next GET stream
}

// lists are the server's capabilities whose lists a host caches.
type lists struct {
	Tools     bool `json:"tools,omitempty"`
	Resources bool `json:"resources,omitempty"`
	Prompts   bool `json:"prompts,omitempty"`
}

// changed lists the notifications that tell a host to read them again.
func (l lists) changed() []string {
	out := []string{"notifications/tools/list_changed"} // every host reads tools
	if l.Resources {
		out = append(out, "notifications/resources/list_changed")
	}
	if l.Prompts {
		out = append(out, "notifications/prompts/list_changed")
	}
	return out
}

// table holds the sessions and writes them to the state file.
type table struct {
	mu   sync.Mutex
	byID map[string]*session
	// ended are the ids hosts ended with DELETE, most recent last (at most
	// max): never adopted again.
	ended []string
	// released are the upstream sessions the proxy ended itself, most
	// recent last (at most maxReleased), kept in the state file: a daemon
	// killed right after a release still tells the next one whose end it
	// was.
	released []string
	path     string
	max      int
	log      *slog.Logger

	// changes counts the changes save was asked to write (under mu);
	// written is the count the last write covered (under writeMu, which
	// serialises writes).
	changes uint64
	writeMu sync.Mutex
	written uint64
	writes  int          // files written, for the tests
	buf     bytes.Buffer // the file's bytes, reused between writes (under writeMu)
}

// maxKeptBuf: a state file buffer past this size is let go after its write.
const maxKeptBuf = 1 << 20

// stateFile is the state file's shape. Full ids: the file is 0600, like
// every other state file that holds them.
type stateFile struct {
	Version  int           `json:"version"`
	Sessions []stateRecord `json:"sessions"`
	Released []string      `json:"released,omitempty"`
}

type stateRecord struct {
	Host     string          `json:"host"`
	Upstream string          `json:"upstream,omitempty"`
	Init     json.RawMessage `json:"init"`
	Protocol string          `json:"protocol,omitempty"`
	Lists    lists           `json:"lists"`
	Last     time.Time       `json:"last"`
	Bridged  bool            `json:"bridged,omitempty"`
	Waiting  bool            `json:"waiting,omitempty"`
}

// loadTable reads the state file. One that cannot be used is set aside
// (renamed .bad) with a warning: its hosts' next calls open new sessions.
func loadTable(path string, max int, log *slog.Logger) (*table, error) {
	t := &table{byID: map[string]*session{}, path: path, max: max, log: log}
	if path == "" {
		return t, nil
	}
	data, err := fsutil.ReadPrivate(path, maxStateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	var st stateFile
	if err == nil {
		err = json.Unmarshal(data, &st)
	}
	if err == nil && st.Version != stateVersion {
		err = fmt.Errorf("version %d, want %d", st.Version, stateVersion)
	}
	if err != nil {
		log.Warn("the proxy's state file cannot be used; setting it aside, hosts holding its sessions get new ones at their next call",
			"path", path, "err", err)
		if rerr := os.Rename(path, path+".bad"); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return nil, fmt.Errorf("proxy state %s: %w; and it cannot be set aside: %w (remove it by hand)", path, err, rerr)
		}
		return t, nil
	}
	t.released = st.Released
	if n := len(t.released); n > maxReleased {
		t.released = t.released[n-maxReleased:]
	}
	for _, r := range st.Sessions {
		if r.Host == "" || len(r.Init) == 0 {
			continue
		}
		t.byID[r.Host] = &session{hostID: r.Host, init: r.Init, client: clientName(r.Init),
			upstream: r.Upstream, protocol: r.Protocol, caps: r.Lists, last: r.Last, bridged: r.Bridged,
			waiting: r.Waiting && r.Upstream == ""}
	}
	return t, nil
}

// newHostID is a session id for the host: 128 random bits.
func newHostID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (t *table) get(id string) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byID[id]
}

// getBridged is get, and whether the session is served over the bridge.
func (t *table) getBridged(id string) (*session, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.byID[id]
	return s, s != nil && s.bridged
}

// add keeps s. When full, it drops the least recently used session that
// holds no GET stream and returns it (nil when none was dropped): the
// caller lets its upstream session go. The scan is O(sessions), once per
// new session past the cap.
func (t *table) add(s *session) (evicted *session) {
	t.mu.Lock()
	if len(t.byID) >= t.max {
		evicted = t.evictLocked()
	}
	t.byID[s.hostID] = s
	t.mu.Unlock()
	t.save()
	return evicted
}

func (t *table) evictLocked() *session {
	var oldest *session
	for _, s := range t.byID {
		if len(s.streams) == 0 && (oldest == nil || s.last.Before(oldest.last)) {
			oldest = s
		}
	}
	if oldest != nil {
		delete(t.byID, oldest.hostID)
		t.releasedLocked(oldest.upstream)
	}
	return oldest
}

// maxReleased bounds the released upstream ids the state file keeps.
const maxReleased = 64

// releasedLocked notes up as ended by the proxy itself (t.mu held).
func (t *table) releasedLocked(up string) {
	if up == "" {
		return
	}
	t.released = append(t.released, up)
	if len(t.released) > maxReleased {
		t.released = t.released[1:]
	}
}

// Released lists the upstream sessions the proxy ended itself, oldest
// first, this run's and the last runs' (see table.released).
func (p *Proxy) Released() []string {
	p.sessions.mu.Lock()
	defer p.sessions.mu.Unlock()
	return slices.Clone(p.sessions.released)
}

// end forgets the session a host ended.
func (t *table) end(id string) {
	t.mu.Lock()
	delete(t.byID, id)
	t.ended = append(t.ended, id)
	if len(t.ended) > t.max {
		t.ended = t.ended[1:]
	}
	t.mu.Unlock()
	t.save()
}

// wasEnded reports whether a host ended id itself.
func (t *table) wasEnded(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Contains(t.ended, id)
}

// all is every session, for the keep-warm pass and status.
func (t *table) all() []*session {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*session, 0, len(t.byID))
	for _, s := range t.byID {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *session) int { return a.last.Compare(b.last) })
	return out
}

// moveAll moves every session to the bridge (bridged) or off it, when the
// server changed eras: an upstream session of the old era is gone with it.
// A session moved off the bridge opens one at its host's next call.
func (t *table) moveAll(bridged bool) {
	t.mu.Lock()
	n := 0
	for _, s := range t.byID {
		if s.bridged != bridged {
			s.bridged, s.upstream, s.lost = bridged, "", ""
			n++
		}
	}
	t.mu.Unlock()
	if n > 0 {
		t.save()
	}
}

// with runs f under the table's lock, for the fields it guards.
func (t *table) with(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f()
}

// save writes the state file atomically, and returns once a write that
// holds the caller's change is on disk; a failure is logged, and the
// sessions stay served from memory. Callers that change the table at once
// share writes (group commit): a write takes the whole table, so one
// begun after a change carries it, and those waiting behind a write need
// only the next one. Hosts opening sessions by the hundred then cost a
// write per batch, not one each (the file holds every session).
func (t *table) save() {
	if t.path == "" {
		return
	}
	t.mu.Lock()
	t.changes++
	mine := t.changes
	t.mu.Unlock()
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	if t.written >= mine {
		return // a write begun after the change has carried it
	}
	t.mu.Lock()
	covers := t.changes
	st := t.snapshotLocked()
	t.mu.Unlock()
	slices.SortFunc(st.Sessions, func(a, b stateRecord) int { return a.Last.Compare(b.Last) })
	t.buf.Reset()
	err := json.NewEncoder(&t.buf).Encode(st)
	if err == nil {
		err = fsutil.WriteAtomic(t.path, t.buf.Bytes(), 0o600)
	}
	if t.buf.Cap() > maxKeptBuf {
		t.buf = bytes.Buffer{} // a table near the cap: not kept between writes
	}
	if err != nil {
		t.log.Warn("cannot save the proxy's sessions; a restart would give their hosts new ones", "path", t.path, "err", err)
	}
	t.written = covers
	t.writes++
}

// snapshotLocked is the state file's content (t.mu held).
func (t *table) snapshotLocked() stateFile {
	st := stateFile{Version: stateVersion, Released: slices.Clone(t.released), Sessions: make([]stateRecord, 0, len(t.byID))}
	for _, s := range t.byID {
		st.Sessions = append(st.Sessions, stateRecord{Host: s.hostID, Upstream: s.upstream, Init: s.init,
			Protocol: s.protocol, Lists: s.caps, Last: s.last, Bridged: s.bridged, Waiting: s.waiting})
	}
	return st
}

// clientName reads clientInfo.name from initialize params, or from a
// 2026-07-28 request's params (its _meta's clientInfo).
func clientName(params json.RawMessage) string {
	type info struct {
		Name string `json:"name"`
	}
	var p struct {
		ClientInfo info `json:"clientInfo"`
		Meta       struct {
			ClientInfo info `json:"io.modelcontextprotocol/clientInfo"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	return cmp.Or(p.ClientInfo.Name, p.Meta.ClientInfo.Name)
}

// SessionView is one host session as status shows it: ids masked.
type SessionView struct {
	ID        string // the host's id, masked
	Upstream  string // the server's, masked; "" while there is none
	Client    string
	Idle      time.Duration // since the host's last request
	Streaming bool          // the host holds a GET stream open
	Bridged   bool          // served over the bridge to a modern-only server
}

// Sessions lists the host sessions, least idle first.
func (p *Proxy) Sessions() []SessionView {
	all := p.sessions.all()
	now := p.opts.Now()
	out := make([]SessionView, 0, len(all))
	p.sessions.with(func() {
		for i := len(all) - 1; i >= 0; i-- {
			s := all[i]
			v := SessionView{ID: mask.ID(s.hostID), Client: s.client, Idle: max(now.Sub(s.last), 0), Streaming: len(s.streams) > 0,
				Bridged: s.bridged}
			if s.upstream != "" {
				v.Upstream = mask.ID(s.upstream)
			}
			out = append(out, v)
		}
	})
	return out
}
