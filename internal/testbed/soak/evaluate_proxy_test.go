package soak

import (
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

const (
	idE = "eeee5555-0000-0000-0000-00000000eeee"
	idF = "ffff6666-0000-0000-0000-00000000ffff"
)

// behindProxy: lostAndBack, plus "warm-proxy", the warm server reached
// through the watchdog's proxy by "agent". Agent's upstream session E dies
// with the kill at 8 s; its next call, at 9.6 s, meets the loss: the proxy
// opens F and answers the call on it (journaled lost + recovered). A
// second call ran at 3 s. The direct entry journals E's end itself.
func behindProxy() Input {
	in := lostAndBack()
	in.Servers["warm-proxy"] = ServerInfo{Timeout: 3 * time.Second, KeepWarm: true}
	in.Proxied = map[string]ProxiedServer{"warm-proxy": {Upstream: "warm", Client: "agent"}}
	in.Events = append(in.Events,
		ServerEvent{At: at(500), Server: "warm", Start: true, ID: idE, Client: "agent"},
		ServerEvent{At: at(9610), Server: "warm", Start: true, ID: idF, Client: "agent"})
	lost := journal.Record{Facts: health.Loss{Incident: true}, Detail: "lost P"}
	back := journal.Record{Facts: health.Recovery{NewSession: mask.ID(idF), Took: 40 * time.Millisecond, Source: health.SourceProxy}, Detail: "back Q"}
	in.Journal = append(in.Journal, seen(9300, health.EvSessionEnded, "warm", idE, journal.Record{}),
		seen(9650, health.EvSessionLost, "warm-proxy", idE, lost), seen(9650, health.EvRecovered, "warm-proxy", idE, back))
	in.Notes = append(in.Notes, Note{At: at(9651), Title: "warm-proxy: session lost — x", Body: "lost P"},
		Note{At: at(9652), Title: "warm-proxy recovered in 40ms", Body: "back Q"})
	in.Calls = []CallRecord{{Server: "warm", Text: "agent warm 1", Start: at(3000), End: at(3010)},
		{Server: "warm", Text: "agent warm 2", Start: at(9600), End: at(9650)}}
	in.Executions = []Execution{{At: at(3005), Server: "warm", Session: idE, Text: "agent warm 1"},
		{At: at(9640), Server: "warm", Session: idF, Text: "agent warm 2"}}
	return in
}

// failCall makes call i fail as the client saw it.
func failCall(in *Input, i int) {
	in.Calls[i].Failure = "HTTP 502"
	in.Executions = in.Executions[:i]
}

// Long: a table of cases, one per promise of the proxy.
func TestEvaluateProxiedCalls(t *testing.T) {
	tests := []struct {
		name           string
		edit           func(*Input)
		want           string // a substring of the problems; "" for none
		failed, excuse int
		genuine        int
	}{
		{"calls ran once each, the loss healed on the call", func(in *Input) {}, "", 0, 0, 2},
		{"a call failed while all was up", func(in *Input) { failCall(in, 1) },
			"calls through the proxy failed while their server was up, not cut by a kill of the process that served them", 1, 0, 2},
		{"a call failed while its server was down", func(in *Input) {
			in.Calls[1].Start, in.Calls[1].End = at(8500), at(8510)
			failCall(in, 1)
		}, "", 1, 1, 2},
		{"a call failed just before its server was stamped down", func(in *Input) {
			in.Calls[1].Start, in.Calls[1].End = at(7700), at(7750)
			failCall(in, 1)
		}, "", 1, 1, 2},
		{"a call failed while the watchdog was down", func(in *Input) {
			in.WatchdogDown = []Span{{From: at(2990), To: at(3200)}}
			in.Calls = in.Calls[:1]
			in.Calls[0].Failure = "connection refused"
			in.Executions = nil
		}, "", 1, 1, 2},
		{"sockets held: a call failed while the daemon restarted", func(in *Input) {
			in.SocketsHeld = true
			in.WatchdogDown = []Span{{From: at(2800), To: at(3200)}}
			in.Calls = in.Calls[:1]
			in.Calls[0].Failure = "connection refused"
			in.Executions = nil
		}, "failed while their server was up, not cut by a kill of the process that served them", 1, 0, 2},
		{"sockets held: a call in flight at the kill failed", func(in *Input) {
			in.SocketsHeld = true
			in.WatchdogDown = []Span{{From: at(3005), To: at(3200)}}
			in.Calls = in.Calls[:1]
			in.Calls[0].Failure = "EOF"
			in.Executions = nil
		}, "", 1, 1, 2},
		{"sockets held: a call sent after the kill on a connection the killed daemon held failed", func(in *Input) {
			// soak seed 1796033718940005853 under load: 106 to 203 ms after
			// the kill, before the client saw its kept connection close.
			in.SocketsHeld = true
			in.WatchdogDown = []Span{{From: at(2700), To: at(3200)}}
			in.Calls = in.Calls[:1]
			in.Calls[0].Failure = "read: connection reset by peer"
			in.Calls[0].ConnSince = at(1000)
			in.Executions = nil
		}, "", 1, 1, 2},
		{"sockets held: a call sent after the kill on a new connection failed", func(in *Input) {
			in.SocketsHeld = true
			in.WatchdogDown = []Span{{From: at(2700), To: at(3200)}}
			in.Calls = in.Calls[:1]
			in.Calls[0].Failure = "read: connection reset by peer"
			in.Calls[0].ConnSince = at(3000)
			in.Executions = nil
		}, "failed while their server was up, not cut by a kill of the process that served them", 1, 0, 2},
		{"proxies apart: a call in flight at a kill of the daemon failed", func(in *Input) {
			in.SocketsHeld, in.ProxyApart = true, true
			in.WatchdogDown = []Span{{From: at(3005), To: at(3200)}}
			in.Calls = in.Calls[:1]
			in.Calls[0].Failure = "EOF"
			in.Executions = nil
		}, "failed while their server was up, not cut by a kill of the process that served them", 1, 0, 2},
		{"proxies apart: a call in flight at a kill of the proxy process failed", func(in *Input) {
			in.SocketsHeld, in.ProxyApart = true, true
			in.ProxyDown = []Span{{From: at(3005), To: at(3200)}}
			in.Calls = in.Calls[:1]
			in.Calls[0].Failure = "EOF"
			in.Executions = nil
		}, "", 1, 1, 2},
		{"proxies apart: a call after the proxy process came back failed", func(in *Input) {
			in.SocketsHeld, in.ProxyApart = true, true
			in.ProxyDown = []Span{{From: at(2000), To: at(2500)}}
			in.Calls = in.Calls[:1]
			in.Calls[0].Failure = "EOF"
			in.Executions = nil
		}, "failed while their server was up, not cut by a kill of the process that served them", 1, 0, 2},
		{"the first call after the watchdog came back failed", func(in *Input) {
			in.WatchdogDown = []Span{{From: at(2000), To: at(2500)}}
			failCall(in, 1)
			in.Calls = in.Calls[1:]
			in.Calls[0].Start, in.Calls[0].End = at(3000), at(3010)
		}, "failed while their server was up, not cut by a kill of the process that served them", 1, 0, 2},
		{"a call ran twice", func(in *Input) {
			in.Executions = append(in.Executions, Execution{At: at(9645), Server: "warm", Session: idF, Text: "agent warm 2"})
		}, "executed more than once", 0, 0, 2},
		{"a failed call ran twice", func(in *Input) {
			in.Calls[1].Failure = "timeout"
			in.Executions = append(in.Executions, Execution{At: at(9645), Server: "warm", Session: idF, Text: "agent warm 2"})
		}, "executed more than once", 1, 0, 2},
		{"a success that never ran", func(in *Input) { in.Executions = in.Executions[:1] }, "never ran", 0, 0, 2},
		{"a success that ran on another server", func(in *Input) { in.Executions[1].Server = "cold" }, "never ran", 0, 0, 2},
		{"the proxy's loss names a live session", func(in *Input) {
			in.ServerDown = nil
			in.Journal = in.Journal[:1]
			in.Notes = nil
			in.Journal = append(in.Journal, seen(9650, health.EvSessionLost, "warm-proxy", idE, journal.Record{Facts: health.Loss{Incident: true}, Detail: "lost P"}),
				seen(9650, health.EvRecovered, "warm-proxy", idE, journal.Record{Facts: health.Recovery{NewSession: mask.ID(idF)}, Detail: "back Q"}))
			in.Notes = []Note{{At: at(9651), Title: "warm-proxy: session lost — x", Body: "lost P"},
				{At: at(9652), Title: "warm-proxy recovered in 40ms", Body: "back Q"}}
			in.Events = in.Events[:len(in.Events)-2] // neither A's successor C nor the host's loss
			in.Events = append(in.Events, ServerEvent{At: at(9610), Server: "warm", Start: true, ID: idF, Client: "agent"})
		}, "false session_lost", 0, 0, 1},
		{"the proxy's new session is the host's", func(in *Input) {
			in.Events[len(in.Events)-1].Client = "host"
		}, "not genuine", 0, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := behindProxy()
			tt.edit(&in)
			r := Evaluate(in)
			checkProblems(t, r, tt.want)
			if r.Proxy.Failed != tt.failed || r.Proxy.Excused != tt.excuse || r.Genuine != tt.genuine {
				t.Fatalf("failed %d excused %d genuine %d; want %d %d %d (not genuine: %v)",
					r.Proxy.Failed, r.Proxy.Excused, r.Genuine, tt.failed, tt.excuse, tt.genuine, r.NotGenuine)
			}
		})
	}
}

func TestEvaluateProxyFigures(t *testing.T) {
	r := Evaluate(behindProxy())
	checkProblems(t, r, "")
	if f := r.Proxy; f.Calls != 2 || f.Recovered != 1 || f.TookMax != 40*time.Millisecond {
		t.Fatalf("calls %d recovered %d took %s; want 2, 1, 40ms", f.Calls, f.Recovered, f.TookMax)
	}
	if r.Identity.Proxy != 1 {
		t.Fatalf("sessions known from the proxy %d, want 1 (F)", r.Identity.Proxy)
	}
}

// Long: a table of cases, one per way an upstream session behind a
// keep-warm proxy may end for idleness.
func TestEvaluateProxyKeptWarm(t *testing.T) {
	idleEnd := func(in *Input) {
		in.Events = append(in.Events, ServerEvent{At: at(12000), Server: "warm", ID: idF, Reason: "idle"})
		in.Journal = append(in.Journal, seen(12100, health.EvSessionExpired, "warm", idF, journal.Record{}))
	}
	tests := []struct {
		name string
		edit func(*Input)
		want string
	}{
		{"ended idle with the watchdog up", idleEnd, "upstream sessions the proxy kept warm expired"},
		{"ended idle after the watchdog was down in its window", func(in *Input) {
			idleEnd(in)
			in.WatchdogDown = []Span{{From: at(10000), To: at(10300)}}
			in.Journal[len(in.Journal)-1].At = at(10400) // detected once back: in time
			in.Events[len(in.Events)-1].At = at(10350)
		}, ""},
		{"ended idle behind a proxy that does not keep warm", func(in *Input) {
			idleEnd(in)
			in.Servers["warm-proxy"] = ServerInfo{Timeout: 3 * time.Second}
		}, ""},
		{"let go by the proxy (DELETE)", func(in *Input) {
			idleEnd(in)
			in.Events[len(in.Events)-1].Reason = "deleted"
			in.Journal[len(in.Journal)-1].Rec.Kind = health.EvSessionEnded
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := behindProxy()
			tt.edit(&in)
			checkProblems(t, Evaluate(in), tt.want)
		})
	}
}
