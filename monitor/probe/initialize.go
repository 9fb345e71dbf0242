package probe

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// initialize runs the legacy handshake and returns the session id ("" for a
// stateless server) and whether the legacy protocol is served at all.
func (p *prober) initialize(ctx context.Context) (string, bool, error) {
	resp, cl, err := p.send(ctx, StepInitialize, mcphttp.Request{
		Method: "initialize",
		Params: map[string]any{
			"protocolVersion": LegacyVersion,
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]string{"name": ClientName, "version": p.c.ClientVersion()},
		},
	})
	if err := p.blocking(ctx, "initialize", resp, cl, err); err != nil {
		return "", false, err
	}
	if resp.Status != http.StatusOK || resp.RPC == nil || resp.RPC.Result == nil {
		p.note("initialize is not served: %s", cl.Reason)
		if resp.SessionID != "" {
			p.strays = append(p.strays, resp.SessionID)
		}
		return "", false, nil
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(resp.RPC.Result, &res); err != nil {
		p.note("initialize result is not readable: %v", err)
	}
	p.r.ProtocolVersion = res.ProtocolVersion
	p.r.ServerName, p.r.ServerVersion = res.ServerInfo.Name, res.ServerInfo.Version
	return resp.SessionID, true, nil
}
