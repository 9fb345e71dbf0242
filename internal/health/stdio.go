package health

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// StdioKind is what a stdio supervisor (watchdog stdio) reported of the
// server it runs (the kinds of proxywire.Stdio), or StdioUnlinked.
type StdioKind string

// Stdio report kinds.
const (
	StdioStarted    StdioKind = "started"     // the first start
	StdioExited     StdioKind = "exited"      // died while the host was connected
	StdioRestarted  StdioKind = "restarted"   // started again and re-initialized
	StdioCallFailed StdioKind = "call_failed" // a call in flight at the death was answered with an error
	StdioGaveUp     StdioKind = "gave_up"     // a crash loop: no more restarts for now
	StdioHung       StdioKind = "hung"        // a request and a ping unanswered
	StdioChanged    StdioKind = "changed"     // came back with another version or capabilities
	StdioEnded      StdioKind = "ended"       // the host went; the server was ended with it
	// StdioLinked and StdioUnlinked are the daemon's own words: it linked
	// to the supervisor PID's socket, or that socket is gone (it exited,
	// or was killed), so it runs no server any more.
	StdioLinked   StdioKind = "linked"
	StdioUnlinked StdioKind = "unlinked"
)

// StdioReport is what a supervisor said: Host is the host's profile name
// ("" when it was not told); At when it saw it (zero: when it came);
// PID the supervisor's process, Child the server's; Starts its starts
// under that supervisor; Took how long a restart took; Exit how the
// server ended; Method a failed call's method; Stderr its last line on
// stderr.
type StdioReport struct {
	Kind                 StdioKind
	Host                 string
	At                   time.Time
	PID, Child, Starts   int
	Took                 time.Duration
	Exit, Method, Stderr string
}

// stdioStderrMax bounds the stderr line an event or the status quotes.
const stdioStderrMax = 300

// Stdios is the model of the stdio servers supervisors run for their
// hosts, each known by its host and name: from their reports it keeps
// each server's state and counts for the status, and says what the host
// saw in the events it returns. Several supervisors of one server (two
// processes of a host) are one server. Pure, like Model; not safe for
// concurrent use.
type Stdios struct {
	servers map[stdioKey]*stdioServer
	// dormant: the supervisors a journal read back at a start names, by
	// pid, until their socket is linked again (StdioLinked).
	dormant map[int]dormantSup
}

type dormantSup struct {
	key stdioKey
	sup *stdioSup
}

type stdioKey struct{ host, server string }

// stdioServer is one server, across its supervisors.
type stdioServer struct {
	sups                         map[int]*stdioSup // by supervisor pid
	exits, restarts, failedCalls int
	lastExit, lastStderr         string
	lastExitAt                   time.Time
}

// stdioSup is one supervisor's run of the server.
type stdioSup struct {
	child, starts int
	since         time.Time // its first report
	state         State     // Healthy, Healing (restarting), Lost (gave up), Down (hung)
	// failed: the methods of the calls its last death cut off, until the
	// restart or the give-up that ends that death.
	failed []string
	// exits: its deaths within StdioCrashWindow of the last, which a
	// give-up counts.
	exits []time.Time
}

// StdioCrashWindow is the supervisor's crash-loop window (watchdog
// stdio's CrashWindow): a give-up says how many exits it saw within it.
const StdioCrashWindow = time.Minute

// NewStdios is an empty model.
func NewStdios() *Stdios {
	return &Stdios{servers: map[stdioKey]*stdioServer{}, dormant: map[int]dormantSup{}}
}

// Apply applies a stdio supervisor's report at now and returns what to
// journal.
func (m *Stdios) Apply(sig StdioSeen, now time.Time) []Event {
	r := sig.Report
	at := r.At
	if at.IsZero() || at.After(now) {
		at = now
	}
	switch r.Kind {
	case StdioUnlinked:
		m.unlink(r.PID)
		return nil
	case StdioLinked:
		if d, ok := m.dormant[r.PID]; ok {
			m.server(d.key).sups[r.PID] = d.sup
			delete(m.dormant, r.PID)
		}
		return nil
	}
	key := stdioKey{r.Host, sig.Server}
	s := m.server(key)
	delete(m.dormant, r.PID)
	sup := s.sups[r.PID]
	if sup == nil {
		sup = &stdioSup{state: Healthy, since: at}
		s.sups[r.PID] = sup
	}
	if r.Child != 0 {
		sup.child = r.Child
	}
	sup.starts = max(sup.starts, r.Starts)
	ev, ok := s.take(key, sup, sig, at)
	if r.Kind == StdioEnded {
		delete(s.sups, r.PID)
	}
	if !ok {
		return nil
	}
	ev.Facts = Supervised{Took: r.Took.Truncate(time.Millisecond), Exit: r.Exit, Stderr: stderrLine(r.Stderr), Method: r.Method,
		Starts: r.Starts, Supervisor: r.PID, Child: r.Child}
	if r.Host != "" {
		ev.Extra = map[string]any{"host": r.Host}
	}
	return []Event{ev}
}

func (m *Stdios) server(key stdioKey) *stdioServer {
	s := m.servers[key]
	if s == nil {
		s = &stdioServer{sups: map[int]*stdioSup{}}
		m.servers[key] = s
	}
	return s
}

// Restore reads back the stdio events of a journal (oldest first) at a
// start: each server's counts and last exit, and its supervisors as they
// were last told, dormant until their socket is linked again (a
// supervisor tells a new daemon only what no daemon heard).
func (m *Stdios) Restore(evs []Event) {
	for _, ev := range evs {
		f, ok := ev.Facts.(Supervised)
		if !ok {
			continue
		}
		host, _ := ev.Extra["host"].(string)
		key := stdioKey{host, ev.Server}
		s := m.server(key)
		d, ok := m.dormant[f.Supervisor]
		if !ok || d.key != key {
			d = dormantSup{key: key, sup: &stdioSup{state: Healthy, since: ev.Time}}
			m.dormant[f.Supervisor] = d
		}
		d.sup.starts = max(d.sup.starts, f.Starts)
		if f.Child != 0 {
			d.sup.child = f.Child
		}
		s.restored(ev, f, d.sup)
	}
}

// restored counts one journaled event, as take did when it was live.
func (s *stdioServer) restored(ev Event, f Supervised, sup *stdioSup) {
	switch ev.Kind {
	case EvStdioExited:
		s.exits++
		s.lastExit, s.lastStderr, s.lastExitAt, sup.state = f.Exit, f.Stderr, ev.Time, Healing
	case EvStdioRestarted:
		s.restarts++
		sup.state = Healthy
	case EvStdioCallFailed:
		s.failedCalls++
	case EvStdioGaveUp:
		sup.state = Lost
	case EvStdioHung:
		sup.state = Down
	}
}

// take moves s and sup on with one report and returns its event, if it
// is worth one.
func (s *stdioServer) take(key stdioKey, sup *stdioSup, sig StdioSeen, at time.Time) (Event, bool) {
	r, who := sig.Report, key.subject()
	ev := Event{Time: at, Server: key.server}
	switch r.Kind {
	case StdioExited:
		s.exits++
		s.lastExit, s.lastStderr, s.lastExitAt = r.Exit, stderrLine(r.Stderr), at
		sup.state, sup.failed = Healing, nil
		sup.exits = append(slices.DeleteFunc(sup.exits, func(e time.Time) bool { return at.Sub(e) >= StdioCrashWindow }), at)
		ev.Kind, ev.Detail = EvStdioExited, who+" crashed"+howEnded(r.Exit, r.Stderr)+"; the watchdog starts it again"
	case StdioCallFailed:
		s.failedCalls++
		sup.failed = append(sup.failed, r.Method)
		ev.Kind, ev.Detail = EvStdioCallFailed, fmt.Sprintf("%s died with the host's call %s in flight; the host got an error for it", who, methodName(r.Method))
	case StdioRestarted:
		s.restarts++
		ev.Kind, ev.Detail = EvStdioRestarted, s.restartedDetail(who, sup, r.Took)
		sup.state, sup.failed = Healthy, nil
	case StdioGaveUp:
		sup.state, sup.failed = Lost, nil
		ev.Kind = EvStdioGaveUp
		ev.Detail = fmt.Sprintf("%s keeps crashing (%s within %s); the watchdog stopped restarting it and the host's calls to it fail%s",
			who, plural(len(sup.exits), "exit"), StdioCrashWindow, lastWords(cmp.Or(stderrLine(r.Stderr), s.lastStderr)))
	case StdioHung:
		sup.state = Down
		ev.Kind, ev.Detail = EvStdioHung, cmp.Or(sig.Detail, who+" does not answer: a request and a ping went unanswered")
	case StdioChanged:
		ev.Kind, ev.Detail = EvStdioChanged, cmp.Or(sig.Detail, who+" came back changed (another version or capabilities)")
	case StdioStarted:
		sup.state = Healthy
		return ev, false
	default: // ended, or a kind of a newer supervisor
		return ev, false
	}
	return ev, true
}

// restartedDetail tells a restart as the host saw it: the crash, how long
// the server was gone, and the calls the death cut off.
func (s *stdioServer) restartedDetail(who string, sup *stdioSup, took time.Duration) string {
	var b strings.Builder
	b.WriteString(who)
	if sup.state == Healing {
		b.WriteString(" crashed")
		if s.lastExit != "" {
			b.WriteString(" (" + s.lastExit + ")")
		}
		b.WriteString(";")
	}
	b.WriteString(" restarted")
	if took > 0 {
		b.WriteString(" in " + tookWords(took))
	}
	switch n := len(sup.failed); {
	case n == 1:
		b.WriteString(", the call in flight (" + methodName(sup.failed[0]) + ") failed")
	case n > 1:
		fmt.Fprintf(&b, ", the %d calls in flight failed", n)
	case sup.state == Healing:
		b.WriteString(", no call was in flight")
	}
	return b.String()
}

// unlink takes the supervisor pid off the servers it runs: it is not
// listed while its socket is not linked, and comes back as it was if it
// is linked again (a link that broke while it ran).
func (m *Stdios) unlink(pid int) {
	for key, s := range m.servers {
		if sup, ok := s.sups[pid]; ok {
			delete(s.sups, pid)
			m.dormant[pid] = dormantSup{key: key, sup: sup}
		}
	}
	if len(m.dormant) <= maxDormant {
		return
	}
	oldest, at := 0, time.Time{}
	for pid, d := range m.dormant {
		if at.IsZero() || d.sup.since.Before(at) {
			oldest, at = pid, d.sup.since
		}
	}
	delete(m.dormant, oldest)
}

// maxDormant bounds the supervisors kept for a link that may come back:
// each one killed leaves one.
const maxDormant = 256

// subject names a stdio server as its host has it: "opencode: filesystem".
func (k stdioKey) subject() string {
	if k.host == "" {
		return k.server
	}
	return k.host + ": " + k.server
}

// howEnded is " (signal: killed): <its last stderr line>", or what of it is known.
func howEnded(exit, stderr string) string {
	out := ""
	if exit != "" {
		out = " (" + exit + ")"
	}
	return out + lastWords(stderrLine(stderr))
}

func lastWords(stderr string) string {
	if stderr == "" {
		return ""
	}
	return ": " + stderr
}

// plural is "1 exit", "5 exits".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func methodName(m string) string { return cmp.Or(m, "a call") }

// stderrLine is a stderr line within stdioStderrMax runes, one line.
func stderrLine(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\n", " "))
	if r := []rune(s); len(r) > stdioStderrMax {
		return string(r[:stdioStderrMax-1]) + "…"
	}
	return s
}

// StdioStatus is what the status says of a stdio server, beside its
// state: its host, its supervisors and their servers' processes, and its
// starts, exits, restarts and failed calls summed over them.
type StdioStatus struct {
	Host        string `json:"host,omitempty"`
	Supervisors int    `json:"supervisors"`
	// PID is the server's process (the newest supervisor's); PIDs lists
	// every supervisor's when there are several.
	PID         int    `json:"pid,omitempty"`
	PIDs        []int  `json:"pids,omitempty"`
	Starts      int    `json:"starts"`
	Exits       int    `json:"exits"`
	Restarts    int    `json:"restarts"`
	FailedCalls int    `json:"failed_calls"`
	LastExit    string `json:"last_exit,omitempty"`
	LastStderr  string `json:"last_stderr,omitempty"`
	// LastExitTime is when it last died (RFC 3339), absent when it never did.
	LastExitTime string `json:"last_exit_time,omitempty"`
}

// TransportStdio is a stdio server's ServerStatus.Transport.
const TransportStdio = "stdio"

// Status lists every stdio server, by host then name.
func (m *Stdios) Status() []ServerStatus {
	keys := make([]stdioKey, 0, len(m.servers))
	for k := range m.servers {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b stdioKey) int { return cmp.Or(cmp.Compare(a.host, b.host), cmp.Compare(a.server, b.server)) })
	out := make([]ServerStatus, 0, len(keys))
	for _, k := range keys {
		out = append(out, m.servers[k].status(k))
	}
	return out
}

func (s *stdioServer) status(k stdioKey) ServerStatus {
	st := &StdioStatus{Host: k.host, Supervisors: len(s.sups), Exits: s.exits, Restarts: s.restarts, FailedCalls: s.failedCalls,
		LastExit: s.lastExit, LastStderr: s.lastStderr}
	if !s.lastExitAt.IsZero() {
		st.LastExitTime = s.lastExitAt.Format(time.RFC3339)
	}
	state, newest := Unknown, time.Time{}
	for _, pid := range slices.Sorted(maps.Keys(s.sups)) {
		sup := s.sups[pid]
		st.Starts += sup.starts
		if sup.child != 0 {
			st.PIDs = append(st.PIDs, sup.child)
			if !sup.since.Before(newest) {
				st.PID, newest = sup.child, sup.since
			}
		}
		if stdioRank(sup.state) > stdioRank(state) {
			state = sup.state
		}
	}
	if len(st.PIDs) < 2 {
		st.PIDs = nil
	}
	return ServerStatus{Name: k.server, Transport: TransportStdio, Mode: ModeUnknown, State: state, Sessions: []SessionStatus{}, Stdio: st}
}

// stdioRank orders the states of a server's supervisors: the worst speaks
// for the server.
func stdioRank(s State) int {
	return slices.Index([]State{Unknown, Healthy, Healing, Down, Lost}, s)
}

// tookWords is how long a restart took, as a person reads it: "120 ms",
// "2.5s".
func tookWords(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return d.Round(100 * time.Millisecond).String()
}
