package probe

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// discover sends the modern server/discover and reports whether the server
// speaks the 2026-07-28 protocol.
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
	if resp.Status == http.StatusOK && resp.RPC != nil && resp.RPC.Result != nil {
		var res struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		if json.Unmarshal(resp.RPC.Result, &res) != nil || len(res.SupportedVersions) == 0 {
			p.note("server/discover answered without supportedVersions")
		}
		p.r.SupportedVersions = res.SupportedVersions
		return offersModern(res.SupportedVersions), nil
	}
	return p.discoverRefused(resp, cl), nil
}

// discoverRefused reads a refused server/discover. Per the 2026-07-28 spec a
// 400 with a recognised JSON-RPC error (-32022, -32021, -32020) comes from a
// modern server; anything else from a legacy one.
func (p *prober) discoverRefused(resp mcphttp.Response, cl mcphttp.Judgement) bool {
	var code int
	if resp.RPC != nil && resp.RPC.Error != nil {
		code = resp.RPC.Error.Code
	}
	switch code {
	case mcp.CodeUnsupportedProtocolVersion:
		var data mcp.UnsupportedProtocolVersionData
		if json.Unmarshal(resp.RPC.Error.Data, &data) == nil {
			p.r.SupportedVersions = data.Supported
		}
		p.note("server/discover refused version %s (-32022)", mcphttp.ModernVersion)
		return offersModern(p.r.SupportedVersions)
	case mcp.CodeMissingRequiredClientCapabilities, mcp.CodeHeaderMismatch:
		p.note("server/discover refused with %d: a 2026-07-28 server (%s)", code, cl.Reason)
		return true
	}
	p.note("server/discover is not served (status %d): a legacy server", resp.Status)
	return false
}

func offersModern(versions []string) bool {
	for _, v := range versions {
		if v >= mcphttp.ModernVersion {
			return true
		}
	}
	return false
}
