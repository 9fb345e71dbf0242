package proxy

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// eraBook is what the proxy knows of its server's protocol era. It starts
// unknown (each daemon run learns it again) and is learned with the spec's
// own probe, a server/discover first (mcphttp.LearnEra): at a host's first
// initialize, when a host's session comes back after a restart, and again
// whenever an answer contradicts it (a legacy request refused as only a
// modern-only server refuses it, a bridged request refused as only a
// legacy server refuses it): servers change eras across a restart.
type eraBook struct {
	mu  sync.Mutex
	era mcphttp.Era
	// told: the daemon heard that the proxy bridges this server, in the
	// era as learned last (once per era change, not per host).
	told bool
	// known and modernOnly mirror era for the fast path, which reads
	// them on every request without taking mu.
	known, modernOnly atomic.Bool
}

// Era is the server's protocol era as the proxy last learned it
// (mcphttp.EraUnknown until it has).
func (p *Proxy) Era() mcphttp.Era {
	p.eras.mu.Lock()
	defer p.eras.mu.Unlock()
	return p.eras.era
}

// Bridging reports whether the proxy serves its hosts the legacy era over
// a modern-only server now.
func (p *Proxy) Bridging() bool { return p.Era() == mcphttp.EraModernOnly }

func (p *Proxy) setEra(e mcphttp.Era) {
	p.eras.mu.Lock()
	defer p.eras.mu.Unlock()
	if e != p.eras.era {
		p.eras.told = false
	}
	p.eras.era = e
	p.eras.known.Store(e != mcphttp.EraUnknown)
	p.eras.modernOnly.Store(e == mcphttp.EraModernOnly)
}

// learnEra asks the server its era on behalf of a host: with the host's
// credentials (h) and, in server/discover's _meta, its client info and
// capabilities (init: its initialize params, nil for none). It returns
// the era (unknown when no answer came: the book keeps what it had) and
// what server/discover said.
func (p *Proxy) learnEra(ctx context.Context, h http.Header, init json.RawMessage) (mcphttp.Era, mcphttp.Discovery, error) {
	c, err := p.upstreamClient(h)
	if err != nil {
		return mcphttp.EraUnknown, mcphttp.Discovery{}, err
	}
	e, d, err := c.LearnEra(ctx, discoverParams(init))
	if err == nil && e != mcphttp.EraUnknown {
		p.setEra(e)
	}
	if err == nil && d.Result != nil {
		p.known.see("server/discover", d.Result, p.opts.Now()) // known.go
	}
	return e, d, err
}

// knownEra is the book's era, learned first when it is unknown. An era
// that could not be learned (the server is down) is unknown: the caller
// goes on as for a legacy server, whose own answer then says more.
func (p *Proxy) knownEra(ctx context.Context, h http.Header, init json.RawMessage) mcphttp.Era {
	if e := p.Era(); e != mcphttp.EraUnknown {
		return e
	}
	e, _, _ := p.learnEra(ctx, h, init)
	return e
}

// tellBridging tells the daemon, once per era change, that the proxy
// bridges this server: its journal says so once, not per host.
func (p *Proxy) tellBridging() {
	p.eras.mu.Lock()
	tell := !p.eras.told && p.eras.era == mcphttp.EraModernOnly
	p.eras.told = p.eras.told || tell
	p.eras.mu.Unlock()
	if tell {
		p.opts.OnSighting(Sighting{Kind: EvBridging, Server: p.opts.Server, Time: p.opts.Now(),
			Detail: "the server serves only the 2026-07-28 protocol; the proxy serves its legacy hosts the legacy protocol over it (initialize, sessions and ping answered by the proxy, every other request sent on in the 2026-07-28 shape, never sent twice)"})
	}
}

// discoverParams are server/discover's params for a host: its client info
// and capabilities, from its initialize, in _meta (mcphttp fills in the
// protocol version, and its own name where the host gave none).
func discoverParams(init json.RawMessage) map[string]any {
	meta := map[string]any{}
	hi := hostInfoOf(init)
	if hi.info != nil {
		meta[mcphttp.MetaClientInfo] = hi.info
	}
	if hi.caps != nil {
		meta[mcphttp.MetaClientCapabilities] = hi.caps
	}
	return map[string]any{"_meta": meta}
}
