package probe

import (
	"context"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// discover sends the modern server/discover and reports whether the server
// speaks the 2026-07-28 protocol (mcphttp.ReadDiscovery: per the spec a
// 400 with -32022, -32021 or -32020 comes from a modern server, anything
// else that is not a result from a legacy one).
func (p *prober) discover(ctx context.Context) (bool, error) {
	resp, cl, err := p.send(ctx, StepDiscover, mcphttp.Request{
		Method: "server/discover",
		Modern: true,
		Params: map[string]any{"_meta": map[string]any{
			mcp.MetaKeyClientInfo: map[string]string{"name": ClientName, "version": p.c.ClientVersion()},
		}},
	})
	if err := p.blocking(ctx, "server/discover", resp, cl, err); err != nil {
		return false, err
	}
	if resp.SessionID != "" {
		p.strays = append(p.strays, resp.SessionID)
	}
	d := mcphttp.ReadDiscovery(resp)
	p.r.SupportedVersions = d.SupportedVersions
	switch {
	case d.Result != nil:
		if len(d.SupportedVersions) == 0 {
			p.note("server/discover answered without supportedVersions")
		}
	case d.RefusalCode == mcp.CodeUnsupportedProtocolVersion:
		p.note("server/discover refused version %s (-32022)", mcphttp.ModernVersion)
	case d.Modern:
		p.note("server/discover refused with %d: a 2026-07-28 server (%s)", d.RefusalCode, cl.Reason)
	default:
		p.note("server/discover is not served (status %d): a legacy server", resp.Status)
	}
	return d.Modern, nil
}
