package soak

import (
	"fmt"
	"time"
)

// A server down when its host starts: at each kill of a server, a host
// (the Go SDK's client, unpatched) starts through that server's proxy
// while the server is down, and makes its calls at once: the proxy
// answers its start from the last-known server (or holds it until the
// server answers), and holds its calls until the server is up again.
// Every start and every call must work, and each call run once on its
// server; only a kill -9 of the proxy process, or a later kill of the
// same server, may cut one.

// LateCalls is how many calls each late host makes.
const LateCalls = 3

// LateHost is one host started through a proxy while its server was down.
type LateHost struct {
	Server string    `json:"server"` // the upstream's soak name
	Down   time.Time `json:"down"`   // the kill of the server it started after
	Up     time.Time `json:"up"`     // when the restarted server listened again
	Start  time.Time `json:"start"`  // when it began to connect
	// Connected is when its connect returned; Failure what it returned
	// instead of a session ("": it connected).
	Connected time.Time    `json:"connected"`
	Failure   string       `json:"failure,omitempty"`
	Calls     []CallRecord `json:"calls,omitempty"`
}

// LateFigures are the late hosts' starts and calls.
type LateFigures struct {
	Hosts int // hosts started through a proxy after their server's kill
	// StartedDown: of Hosts, those whose start began before their server
	// listened again and was answered through the proxy.
	StartedDown int
	// Answered: of StartedDown, those answered before their server
	// listened again (from the last-known server); the rest waited for it.
	Answered  int
	Connected int
	Calls     int
	Worked    int // the echo came back, and the call ran once, on its server
	// Excused: starts and calls cut by a kill -9 of the proxy process, or
	// by a later kill of the same server.
	Excused int
	Failed  []string
}

// lateHosts judges the late hosts.
func (r *Report) lateHosts(in Input) {
	runs := map[string][]Execution{}
	for _, e := range in.Executions {
		runs[e.Text] = append(runs[e.Text], e)
	}
	f := &r.LateHosts
	for _, h := range in.Late {
		f.Hosts++
		name := fmt.Sprintf("%s host started %s (server killed %s, up %s)", h.Server, fmtTime(h.Start), fmtTime(h.Down), fmtTime(h.Up))
		if h.Failure != "" {
			if lateExcused(in, h, h.Start, h.Connected) {
				f.Excused++
				continue
			}
			f.Failed = append(f.Failed, fmt.Sprintf("%s: its start failed at %s: %s", name, fmtTime(h.Connected), h.Failure))
			continue
		}
		f.Connected++
		if h.Start.Before(h.Up) {
			f.StartedDown++
			if h.Connected.Before(h.Up) {
				f.Answered++
			}
		}
		for _, c := range h.Calls {
			f.Calls++
			ran := runs[c.Text]
			switch {
			case c.Failure == "" && len(ran) == 1 && ran[0].Server == c.Server:
				f.Worked++
			case c.Failure == "":
				f.Failed = append(f.Failed, fmt.Sprintf("%s: call %q answered at %s, executed %d times", name, c.Text, fmtTime(c.End), len(ran)))
			case lateExcused(in, h, c.Start, c.End):
				f.Excused++
			default:
				f.Failed = append(f.Failed, fmt.Sprintf("%s: call %q %s→%s: %s", name, c.Text, c.Start.Format("15:04:05.000"), fmtTime(c.End), c.Failure))
			}
		}
	}
}

// lateExcused: what the late host h did from from to to was cut by a kill
// -9 of the proxy process, or by a kill of its server after the one it
// started after.
func lateExcused(in Input, h LateHost, from, to time.Time) bool {
	if cutByKill(in.ProxyDown, CallRecord{Start: from, End: to}) {
		return true
	}
	for _, d := range in.ServerDown[h.Server] {
		if d.From.After(h.Down) && d.From.Before(to.Add(callSlack)) && (d.To.IsZero() || d.To.After(from.Add(-callSlack))) {
			return true
		}
	}
	return false
}

func (r *Report) lateProblems() {
	r.list(r.LateHosts.Failed, "hosts started while their server was down whose start or calls through the proxy failed")
}

// lateRows: the late hosts, for the report.
func (r Report) lateRows(t *table) {
	f := r.LateHosts
	t.row("hosts started through the proxy while their server was down / answered before it was up (the last-known server) / waited for it",
		fmt.Sprintf("%d / %d / %d", f.StartedDown, f.Answered, f.StartedDown-f.Answered))
	t.row("their starts (all, started down or not) / connected; their calls / worked (run once, on their server) / cut by a kill of the proxy process or of their server again / failed",
		fmt.Sprintf("%d / %d; %d / %d / %d / %d", f.Hosts, f.Connected, f.Calls, f.Worked, f.Excused, len(f.Failed)))
}
