package proxy

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// tendFloor is the least time between two keep-warm passes (an eighth of
// the idle timeout when that is shorter).
const tendFloor = time.Second

// delete ends the host's session: upstream with DELETE, then here.
func (p *Proxy) delete(w http.ResponseWriter, r *http.Request) {
	s := p.sessionOrPass(w, r)
	if s == nil {
		return
	}
	p.sessions.end(s.hostID)
	p.opts.OnSighting(Sighting{Kind: EvEnded, Server: p.opts.Server, Time: p.opts.Now(), HostSession: s.hostID,
		Client: s.client, Detail: "the host ended its session"})
	up, _ := p.current(s)
	if up == "" {
		w.WriteHeader(http.StatusOK) // nothing upstream to end
		return
	}
	resp, err := p.send(r.Context(), r, nil, up)
	if err != nil {
		badGateway(w, err)
		return
	}
	if resp.StatusCode == http.StatusNotFound {
		resp.Body.Close()
		w.WriteHeader(http.StatusOK) // the server had ended it already
		return
	}
	p.relay(w, answer{resp: resp}, s.hostID, p.opts.MaxAnswer)
}

// tend keeps upstream sessions warm and lets go of those whose host is
// gone, until ctx ends. It sleeps while there is no idle timeout.
func (p *Proxy) tend(ctx context.Context) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	t.Stop()
	if idle := p.idleTimeout(); idle > 0 {
		t.Reset(idle / 2)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.retune:
		case <-t.C:
		}
		t.Stop()
		if idle := p.idleTimeout(); idle > 0 {
			t.Reset(max(p.tendOnce(ctx, idle), min(tendFloor, idle/8)))
		}
	}
}

// SetIdleTimeout replaces the server's idle timeout (the daemon learned the
// server's own); the next keep-warm pass follows it at once.
func (p *Proxy) SetIdleTimeout(d time.Duration) {
	p.modeMu.Lock()
	changed := d != p.idle
	p.idle = d
	p.modeMu.Unlock()
	if changed {
		select {
		case p.retune <- struct{}{}:
		default:
		}
	}
}

func (p *Proxy) idleTimeout() time.Duration {
	p.modeMu.Lock()
	defer p.modeMu.Unlock()
	return p.idle
}

// tendOnce pings what is due and releases what is gone; it returns how
// long until the next session is due.
func (p *Proxy) tendOnce(ctx context.Context, idle time.Duration) time.Duration {
	half := idle / 2
	next := half
	for _, s := range p.sessions.all() {
		now := p.opts.Now()
		var up string
		var present bool
		var last, warm time.Time
		p.sessions.with(func() {
			ahead := s.clampTo(now)
			up, present, last, warm = s.upstream, len(s.streams) > 0, s.last, later(s.last, s.pinged)
			if ahead {
				warm = time.Time{} // when it was really touched is unknown: ping now
			}
		})
		switch {
		case up == "":
		case !present && now.Sub(last) > idle:
			p.release(ctx, s, up)
		case p.opts.KeepWarm && now.Sub(warm) >= half:
			p.keepWarm(ctx, s, up)
			next = min(next, half)
		case p.opts.KeepWarm:
			next = min(next, half-now.Sub(warm))
		}
	}
	return next
}

// keepWarm pings the upstream session. A session found lost is replaced
// at the host's next call, before the call is sent.
func (p *Proxy) keepWarm(ctx context.Context, s *session, up string) {
	h, protocol := p.headerAndProtocol(s)
	resp, err := p.pingClient(s).Ping(ctx, up, protocol)
	switch mcphttp.Judge(resp, err).Verdict {
	case mcphttp.Stateless:
		if mcphttp.ModernOnlyRefusal(resp) { // the server went modern-only: every session moves to the bridge
			p.relearn(ctx, h, s.init)
		}
	case mcphttp.Alive:
		p.sessions.with(func() { s.pinged = p.opts.Now() })
	case mcphttp.Lost:
		p.sessions.with(func() {
			if s.upstream == up {
				s.upstream, s.lost = "", up
			}
		})
		p.sessions.save()
	}
}

// release ends the upstream session of a host that is gone. Its session
// here stays: if the host comes back, its next call opens a new one.
// The session is unmapped first (a call from now on opens a new one, never
// meets the one being ended), then the release is told, then the DELETE
// goes: whoever watches the server's store knows the end for the proxy's
// before the store shows it.
func (p *Proxy) release(ctx context.Context, s *session, up string) {
	p.sessions.with(func() {
		if s.upstream == up {
			s.upstream = ""
		}
		p.sessions.releasedLocked(up)
	})
	p.sessions.save() // before the DELETE: a kill right after it still knows
	p.opts.OnSighting(Sighting{Kind: EvReleased, Server: p.opts.Server, Time: p.opts.Now(), HostSession: s.hostID,
		OldUpstream: up, Client: s.client, Detail: "the host sent nothing for longer than the server's idle timeout; its upstream session is ended"})
	_, protocol := p.headerAndProtocol(s)
	_, _ = p.pingClient(s).DeleteVersion(ctx, up, protocol)
}

// letGo ends the upstream session of a host session the table dropped to
// make room (s nil: none was). The host, should it come back, is adopted
// on a new upstream session. The DELETE outlives the request that made
// room (its host may hang up once answered), within evictTimeout.
func (p *Proxy) letGo(ctx context.Context, s *session) {
	if s == nil {
		return
	}
	up, _ := p.current(s)
	p.opts.OnSighting(Sighting{Kind: EvReleased, Server: p.opts.Server, Time: p.opts.Now(), HostSession: s.hostID,
		OldUpstream: up, Client: s.client, Detail: fmt.Sprintf("the proxy keeps at most %d sessions; the least recently used one was ended to make room", p.opts.MaxSessions)})
	if up == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), evictTimeout)
	defer cancel()
	_, protocol := p.headerAndProtocol(s)
	if _, err := p.pingClient(s).DeleteVersion(ctx, up, protocol); err != nil {
		p.log.Warn("cannot end the upstream session of a session dropped to make room; the server's idle timeout will", "session", mask.ID(up), "err", err)
	}
}

// evictTimeout bounds the DELETE of a session dropped to make room.
const evictTimeout = 10 * time.Second

func (p *Proxy) headerAndProtocol(s *session) (h http.Header, protocol string) {
	p.sessions.with(func() { h, protocol = s.header, s.protocol })
	return h, protocol
}

// pingClient talks to the server with the host's last headers (its
// credentials), or the config's before the host's first call.
func (p *Proxy) pingClient(s *session) *mcphttp.Client {
	h, _ := p.headerAndProtocol(s)
	if h == nil {
		return p.ping
	}
	c, err := mcphttp.New(mcphttp.Options{URL: p.opts.Upstream, Headers: p.replayHeaders(h), AllowInsecure: p.opts.AllowInsecure, HTTPClient: p.hc})
	if err != nil {
		return p.ping
	}
	return c
}

// clampTo pulls stamps that lie ahead of now back to it, and reports
// whether any did: the wall clock was set back since they were taken.
// Left ahead, they would read as a ping a moment ago until real time caught
// up, and the server's idle timeout would end the session meanwhile. Call
// with the table's lock.
func (s *session) clampTo(now time.Time) bool {
	ahead := s.last.After(now) || s.pinged.After(now)
	if s.last.After(now) {
		s.last = now
	}
	if s.pinged.After(now) {
		s.pinged = now
	}
	return ahead
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
