package soak

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// callSlack: how far a call's failure may lie outside a span its server or
// the watchdog was down and still be that span's doing (the client and the
// soak stamp times in different processes; a kill is stamped once reaped).
const callSlack = 300 * time.Millisecond

// killSlack: a call begun this soon after a kill of the daemon may still
// have been written into a kept-alive connection the killed daemon held,
// before its client saw the connection close: it is one the kill cut.
const killSlack = 100 * time.Millisecond

// pythonCallPrefix starts the text of every call of the Python SDK client
// (testdata/pypeers/soak_client.py).
const pythonCallPrefix = "py "

// ProxiedServer is a config entry that reaches a soak server through the
// watchdog's proxy: the same server under another name, whose sessions
// belong to the unpatched client behind the proxy.
type ProxiedServer struct {
	Upstream string // the soak server's name, as the truth has it
	Client   string // clientInfo.name of the client behind the proxy
}

// CallRecord is one tool call of the unpatched client through a proxy, as
// the client saw it. Text is unique to the call: the servers report each
// execution with it.
type CallRecord struct {
	Server  string    `json:"server"` // the upstream's soak name
	Text    string    `json:"text"`
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Failure string    `json:"failure,omitempty"` // what came back instead of the echo; "": it succeeded
	// ConnSince is when the connection the call went out on was opened;
	// zero: not known (the Python client's calls).
	ConnSince time.Time `json:"conn_since,omitzero"`
}

// Execution is a server's own word that its echo tool ran.
type Execution struct {
	At      time.Time
	Server  string
	Session string
	Text    string
}

// ProxyFigures are the unpatched client's calls through the proxies.
type ProxyFigures struct {
	Calls  int
	Failed int
	// Python: of Calls, the Python SDK client's (texts "py ...").
	Python int
	// Excused: failed while the call's server or the watchdog was down;
	// with the sockets held (Input.SocketsHeld), only while its server
	// was down or cut by a kill of the daemon (Cut of them).
	Excused int
	// Cut: failed calls that were in flight when the daemon was killed -9
	// (begun before the kill, or within killSlack after it): the daemon
	// held their connection. With the proxies apart (Input.ProxyApart) no
	// call may be cut so: a failure at a kill of the daemon is FailedUp.
	Cut int
	// ProxyCut: with the proxies apart, failed calls that were in flight
	// when the proxy process itself was killed -9: it held their
	// connection, and nobody can tell whether they ran.
	ProxyCut int
	// FailedUp: failed otherwise: while the server was up, and the daemon
	// up or, with the sockets held, restarting.
	FailedUp []string
	// RanTwice: calls the servers executed more than once.
	RanTwice []string
	// NotRun: calls answered as a success that no server executed (or
	// another server did).
	NotRun []string
	// Waited: successful calls that were under way while the daemon
	// restarted (they waited in the socket its supervisor held), and the
	// longest of them.
	Waited    int
	WaitedMax time.Duration
	// Recovered: the proxy's recoveries (a host call met a lost session
	// and was answered on a new one); TookMax the longest such call.
	Recovered int
	TookMax   time.Duration
	// KeptWarmExpired: upstream sessions of a proxied keep-warm server
	// that the server ended for idleness while the watchdog ran.
	KeptWarmExpired []string
}

// upstream is the truth's name for a server the journal names: a proxied
// entry's upstream, or the name itself.
func (in Input) upstream(server string) string {
	if p, ok := in.Proxied[server]; ok {
		return p.Upstream
	}
	return server
}

// clientOf is whose sessions a journal server's incidents are about: the
// client behind its proxy, or the host.
func (in Input) clientOf(server string) string {
	if p, ok := in.Proxied[server]; ok {
		return p.Client
	}
	return in.HostClient
}

// proxiedCalls: every call through a proxy succeeded unless its server or
// the watchdog was down; every success ran once, on its server; no call
// ran twice.
func (r *Report) proxiedCalls(in Input) {
	runs := map[string][]Execution{}
	for _, e := range in.Executions {
		runs[e.Text] = append(runs[e.Text], e)
	}
	f := &r.Proxy
	for _, c := range in.Calls {
		f.Calls++
		if strings.HasPrefix(c.Text, pythonCallPrefix) {
			f.Python++
		}
		ran := runs[c.Text]
		if len(ran) > 1 {
			f.RanTwice = append(f.RanTwice, fmt.Sprintf("%q ran %d times", c.Text, len(ran)))
		}
		if c.Failure == "" {
			if _, down := overlapping(in.WatchdogDown, c.Start, c.End); down {
				f.Waited++
				f.WaitedMax = max(f.WaitedMax, c.End.Sub(c.Start))
			}
			if len(ran) == 0 || ran[0].Server != c.Server {
				f.NotRun = append(f.NotRun, fmt.Sprintf("%q answered at %s, executed %d times", c.Text, fmtTime(c.End), len(ran)))
			}
			continue
		}
		f.Failed++
		if excused, cut := downDuring(in, c); excused {
			f.Excused++
			switch cut {
			case cutDaemon:
				f.Cut++
			case cutProxy:
				f.ProxyCut++
			}
			continue
		}
		f.FailedUp = append(f.FailedUp, fmt.Sprintf("%q %s→%s: %s%s", c.Text, c.Start.Format("15:04:05.000"), fmtTime(c.End),
			c.Failure, downNote(in.WatchdogDown, c.Start.Add(-time.Second), c.End.Add(time.Second))))
	}
	for _, seen := range in.Journal {
		if _, ok := in.Proxied[seen.Rec.Server]; ok && seen.Rec.Kind == health.EvRecovered {
			f.Recovered++
			f.TookMax = max(f.TookMax, took(seen.Rec))
		}
	}
}

// Which kill cut a call (downDuring).
const (
	cutNone = iota
	cutDaemon
	cutProxy
)

// downDuring: the call's server or the watchdog was down at some time
// during the call (give or take callSlack). With the proxies' sockets held
// while the daemon restarts, its being down excuses only a call the kill
// cut (cut); with the proxies apart, only a call a kill of the proxy
// process cut.
func downDuring(in Input, c CallRecord) (excused bool, cut int) {
	from, to := c.Start.Add(-callSlack), c.End.Add(callSlack)
	if _, server := overlapping(in.ServerDown[c.Server], from, to); server {
		return true, cutNone
	}
	switch {
	case in.ProxyApart && cutByKill(in.ProxyDown, c):
		return true, cutProxy
	case in.ProxyApart:
		return false, cutNone
	case in.SocketsHeld && cutByKill(in.WatchdogDown, c):
		return true, cutDaemon
	case in.SocketsHeld:
		return false, cutNone
	}
	_, watchdog := overlapping(in.WatchdogDown, from, to)
	return watchdog, cutNone
}

// cutByKill: the call was in flight at a kill of the daemon (each down
// span starts at its kill), or went out after it on a connection opened
// before it: the killed daemon had accepted that one, and it died with it.
func cutByKill(down []Span, c CallRecord) bool {
	for _, s := range down {
		if !c.End.After(s.From) {
			continue
		}
		if c.Start.Before(s.From.Add(killSlack)) || !c.ConnSince.IsZero() && c.ConnSince.Before(s.From) {
			return true
		}
	}
	return false
}

// proxyKeptWarm: on a proxied keep-warm server, the proxy pings each
// upstream session it holds at half the timeout and lets a silent host's
// go with DELETE, so none ends for idleness while the watchdog runs
// through its last idle window.
func (r *Report) proxyKeptWarm(in Input, all []*session) {
	for name, p := range in.Proxied {
		info := in.Servers[name]
		if !info.KeepWarm {
			continue
		}
		for _, s := range all {
			if s.server != p.Upstream || s.client != p.Client || s.reason != "idle" {
				continue
			}
			if _, down := overlapping(append(in.WatchdogDown, in.ProxyDown...), s.end.Add(-info.Timeout-sweepSlack), s.end); down {
				continue
			}
			r.Proxy.KeptWarmExpired = append(r.Proxy.KeptWarmExpired, name+": "+describe(s))
		}
	}
}

func (r *Report) proxyProblems() {
	f := r.Proxy
	r.list(f.FailedUp, "calls through the proxy failed while their server was up, not cut by a kill of the process that served them")
	r.list(f.RanTwice, "calls through the proxy executed more than once")
	r.list(f.NotRun, "calls through the proxy answered as successes their server never ran")
	r.list(f.KeptWarmExpired, "upstream sessions the proxy kept warm expired")
}
