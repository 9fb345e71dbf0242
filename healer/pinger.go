package healer

import (
	"context"
	"crypto/rand"
	"maps"
	"slices"
	"sync"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// Pinger sends the watchdog's own requests: keep-warm pings on the host's
// session and sessionless liveness checks. It never sends anything with a
// side effect (no tool calls, nothing replayed). Results go back as
// observations; one request per server is in flight at a time.
type Pinger struct {
	clients map[string]*mcphttp.Client
	report  func(health.Observation)
	mu      sync.Mutex
	busy    map[string]bool
	wg      sync.WaitGroup
}

// NewPinger pings through clients (by server name) and hands each outcome
// to report, from the request's goroutine.
func NewPinger(clients map[string]*mcphttp.Client, report func(health.Observation)) *Pinger {
	return &Pinger{clients: clients, report: report, busy: map[string]bool{}}
}

// KeepWarm pings t's session unless a request to its server is in flight.
func (p *Pinger) KeepWarm(ctx context.Context, t health.WarmTarget) bool {
	return p.start(ctx, t.Server, func(c *mcphttp.Client) health.Observation {
		resp, err := c.Ping(ctx, t.SessionID, "")
		cl := mcphttp.Judge(resp, err)
		return health.KeepWarmAnswered{Server: t.Server, Session: t.SessionID,
			Outcome: Outcome(cl.Verdict), Took: resp.Took, Detail: cl.Reason, NamedBy: t.NamedBy}
	})
}

// Liveness asks a server something that needs no session of anyone's:
// any answer means it is up; a 2026-07-28 answer means stateless. With
// ask, the ping carries a made-up session id, and a lost-session answer
// says how the server tells a client its session is gone
// (LivenessAnswered.Answer: 404 as the spec says, or 400), which decides
// what some hosts do next. The server's era (LivenessAnswered.Era) comes
// with it: a modern-only server
// refuses the ping itself; otherwise, when era (what the daemon knows)
// is unknown or was modern-only, a server/discover tells legacy from
// both eras.
func (p *Pinger) Liveness(ctx context.Context, server string, ask bool, era string) bool {
	return p.start(ctx, server, func(c *mcphttp.Client) health.Observation {
		id := ""
		if ask {
			id = health.AskedSession + rand.Text()
		}
		resp, err := c.Ping(ctx, id, "")
		cl := mcphttp.Judge(resp, err)
		sig := health.LivenessAnswered{Server: server, Outcome: health.OutcomeAlive, Took: resp.Took, Detail: cl.Reason}
		switch cl.Verdict {
		case mcphttp.Down:
			sig.Outcome = health.OutcomeDown
		case mcphttp.Stateless:
			sig.Outcome = health.OutcomeStateless
		case mcphttp.Lost:
			if ask {
				sig.Answer, sig.Session = cl.Kind, id
			}
		}
		sig.Era = learnEra(ctx, c, resp, cl.Verdict, era)
		return sig
	})
}

// learnEra is the era a liveness ping's answer tells, asking
// server/discover when it must ("": nothing learned).
func learnEra(ctx context.Context, c *mcphttp.Client, ping mcphttp.Response, v mcphttp.Verdict, known string) string {
	modernOnly := mcphttp.ModernOnlyRefusal(ping)
	switch {
	case v == mcphttp.Down || v == mcphttp.Redirect || v == mcphttp.Auth:
		return ""
	case modernOnly:
		return string(mcphttp.EraModernOnly)
	case known != "" && known != health.EraModernOnly:
		return "" // nothing says it changed
	}
	e, err := c.EraWith(ctx, ping)
	if err != nil {
		return ""
	}
	return string(e)
}

func (p *Pinger) start(ctx context.Context, server string, do func(*mcphttp.Client) health.Observation) bool {
	c := p.clients[server]
	p.mu.Lock()
	defer p.mu.Unlock()
	if c == nil || p.busy[server] || ctx.Err() != nil {
		return false
	}
	p.busy[server] = true
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		sig := do(c)
		p.mu.Lock()
		delete(p.busy, server)
		p.mu.Unlock()
		if ctx.Err() != nil {
			// Its sender ended it (the daemon stopping, a phase over): the
			// server said nothing, and a "cancelled" reported as its answer
			// is a failed ping and a server down that never happened.
			return
		}
		p.report(sig)
	}()
	return true
}

// Servers lists the servers it has a client for, in name order.
func (p *Pinger) Servers() []string { return slices.Sorted(maps.Keys(p.clients)) }

// Wait returns when every request started has reported.
func (p *Pinger) Wait() { p.wg.Wait() }

// Outcome maps an answer's verdict to the health model's terms.
func Outcome(v mcphttp.Verdict) health.Outcome {
	switch v {
	case mcphttp.Alive:
		return health.OutcomeAlive
	case mcphttp.Lost:
		return health.OutcomeLost
	case mcphttp.Stateless:
		return health.OutcomeStateless
	case mcphttp.Down:
		return health.OutcomeDown
	case mcphttp.Auth:
		return health.OutcomeAuth
	}
	return health.OutcomeOther
}
