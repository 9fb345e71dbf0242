package mcphttp

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Era is a server's protocol era, as probe and status say it.
type Era string

// Eras. A server that serves 2026-07-28 has no session to lose either way;
// a modern-only one refuses every legacy request (initialize included), so
// a legacy host reaches it only through the watchdog's proxy, which
// bridges the eras.
const (
	EraUnknown Era = ""
	// EraLegacy: initialize and sessions (2025-11-25 and before);
	// server/discover is not served, or lists no 2026-07-28.
	EraLegacy Era = "legacy"
	// EraBoth: server/discover lists 2026-07-28, and legacy requests are
	// still served (the Go SDK's stateless handler, mcp-go, the Python SDK,
	// the TypeScript SDK v2's default).
	EraBoth Era = "both eras"
	// EraModernOnly: only 2026-07-28; a legacy request gets 400 -32022
	// naming only modern versions (the TypeScript SDK v2 with legacy:
	// 'reject').
	EraModernOnly Era = "modern-only"
)

// MetaServerInfo is the _meta key a 2026-07-28 server names itself by in
// every result, server/discover's included.
const MetaServerInfo = mcp.MetaKeyServerInfo

// Discovery is what a server/discover answer said.
type Discovery struct {
	// Modern: the server answered as a 2026-07-28 server: a result listing
	// a modern version, or a refusal with a code only modern servers use
	// (-32022 naming a modern version, -32021, -32020).
	Modern bool
	// SupportedVersions as the result, or a -32022 refusal's data, listed them.
	SupportedVersions []string
	// Result is the whole result (nil for a refusal); Capabilities, its
	// capabilities; ServerInfo, its _meta serverInfo (or a top-level
	// serverInfo); Instructions, its instructions.
	Result       json.RawMessage
	Capabilities json.RawMessage
	ServerInfo   json.RawMessage
	Instructions string
	// RefusalCode is the JSON-RPC error code of a refused discover (0: none).
	RefusalCode int
}

// Discover sends the 2026-07-28 server/discover with params (nil: none;
// the _meta triple is filled in where params lack it) and reads what it
// says. The error is the transport's; every answer is a Discovery.
func (c *Client) Discover(ctx context.Context, params any) (Discovery, Response, error) {
	resp, err := c.Do(ctx, Request{Method: "server/discover", Modern: true, Params: params})
	if err != nil {
		return Discovery{}, resp, err
	}
	return ReadDiscovery(resp), resp, nil
}

// ReadDiscovery reads a server/discover answer. Per the 2026-07-28 spec a
// 400 with a recognised JSON-RPC error (-32022, -32021, -32020) comes from
// a modern server; anything else from a legacy one.
func ReadDiscovery(resp Response) Discovery {
	var d Discovery
	if resp.RPC == nil {
		return d
	}
	if resp.RPC.Error != nil {
		d.RefusalCode = resp.RPC.Error.Code
		switch d.RefusalCode {
		case mcp.CodeUnsupportedProtocolVersion:
			d.SupportedVersions = supportedOf(resp.RPC.Error)
			d.Modern = OffersModern(d.SupportedVersions)
		case mcp.CodeMissingRequiredClientCapabilities, mcp.CodeHeaderMismatch:
			d.Modern = true
		}
		return d
	}
	if resp.Status != http.StatusOK || resp.RPC.Result == nil {
		return d
	}
	return DiscoveryOf(resp.RPC.Result)
}

// DiscoveryOf reads a server/discover result: one just answered, or one
// kept from an earlier answer (the proxy answers from it while the server
// is down).
func DiscoveryOf(result json.RawMessage) Discovery {
	var d Discovery
	var r struct {
		SupportedVersions []string                   `json:"supportedVersions"`
		Capabilities      json.RawMessage            `json:"capabilities"`
		ServerInfo        json.RawMessage            `json:"serverInfo"`
		Instructions      string                     `json:"instructions"`
		Meta              map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(result, &r) != nil {
		return d
	}
	d.Result, d.SupportedVersions, d.Capabilities, d.Instructions = result, r.SupportedVersions, r.Capabilities, r.Instructions
	d.ServerInfo = r.ServerInfo
	if si, ok := r.Meta[MetaServerInfo]; ok {
		d.ServerInfo = si
	}
	d.Modern = OffersModern(d.SupportedVersions)
	return d
}

// OffersModern reports whether versions list 2026-07-28 or later.
func OffersModern(versions []string) bool {
	for _, v := range versions {
		if IsModernVersion(v) {
			return true
		}
	}
	return false
}

// IsModernVersion reports whether v is 2026-07-28 or later (versions are
// dates, so they order as strings).
func IsModernVersion(v string) bool { return v >= ModernVersion }

func supportedOf(e *RPCError) []string {
	var data mcp.UnsupportedProtocolVersionData
	if json.Unmarshal(e.Data, &data) != nil {
		return nil
	}
	return data.Supported
}

// ModernOnlyRefusal reports whether an answer is a modern-only server
// refusing a legacy request: 400 -32022 whose supported versions are all
// 2026-07-28 or later. Such a server checks the version before it runs
// anything: the request did nothing.
func ModernOnlyRefusal(resp Response) bool {
	return resp.Status == http.StatusBadRequest && resp.RPC != nil && modernOnlyError(resp.RPC.Error)
}

// ModernOnlyRefusalRaw is ModernOnlyRefusal for an answer someone else
// read: its status and the start of its body.
func ModernOnlyRefusalRaw(status int, body []byte) bool {
	if status != http.StatusBadRequest {
		return false
	}
	msgs, ok := decodeMessages(body)
	return ok && len(msgs) == 1 && modernOnlyError(msgs[0].Error)
}

func modernOnlyError(e *RPCError) bool {
	if e == nil || e.Code != mcp.CodeUnsupportedProtocolVersion {
		return false
	}
	versions := supportedOf(e)
	if len(versions) == 0 {
		return false
	}
	for _, v := range versions {
		if !IsModernVersion(v) {
			return false
		}
	}
	return true
}

// EraOf is the era from what a server/discover and a legacy request (a
// ping: nothing runs) were answered: modern-only when the legacy request
// was refused as a modern-only server refuses it; both when the server is
// modern and the legacy request was served; legacy otherwise.
func EraOf(d Discovery, legacy Response) Era {
	switch {
	case ModernOnlyRefusal(legacy):
		return EraModernOnly
	case d.Modern:
		return EraBoth
	}
	return EraLegacy
}

// LearnEra asks the server its era: server/discover (params as Discover
// takes them), then, for a modern server, a legacy ping without a session
// (it runs nothing). A session a server opened for either is ended at
// once. An answer that reached no server is the error, and the era
// unknown.
func (c *Client) LearnEra(ctx context.Context, params any) (Era, Discovery, error) {
	d, resp, err := c.Discover(ctx, params)
	c.endStray(ctx, resp)
	if err != nil {
		return EraUnknown, d, err
	}
	if !d.Modern {
		return EraLegacy, d, nil
	}
	resp, err = c.Ping(ctx, "", "")
	c.endStray(ctx, resp)
	if err != nil {
		return EraUnknown, d, err
	}
	return EraOf(d, resp), d, nil
}

// EraWith learns the era from legacy, the answer to a legacy request
// already made (a liveness ping), and a server/discover asked now. A
// modern-only refusal needs no discover: only such a server gives it.
func (c *Client) EraWith(ctx context.Context, legacy Response) (Era, error) {
	if ModernOnlyRefusal(legacy) {
		return EraModernOnly, nil
	}
	d, resp, err := c.Discover(ctx, nil)
	c.endStray(ctx, resp)
	if err != nil {
		return EraUnknown, err
	}
	return EraOf(d, legacy), nil
}

// endStray ends a session an answer opened unasked (some legacy servers
// open one for any request without a session id).
func (c *Client) endStray(ctx context.Context, resp Response) {
	if resp.SessionID != "" {
		_, _ = c.Delete(context.WithoutCancel(ctx), resp.SessionID)
	}
}

// LegacyRefusalRaw reports whether an answer (its status and the start
// of its body) refuses a 2026-07-28 request as only a legacy server
// would: a lost or missing session (Judge's Lost), or 400 -32022 naming
// no modern version.
func LegacyRefusalRaw(status int, header http.Header, body []byte) bool {
	if JudgeRaw(status, header, body).Verdict == Lost {
		return true
	}
	if status != http.StatusBadRequest {
		return false
	}
	msgs, ok := decodeMessages(body)
	if !ok || len(msgs) != 1 || msgs[0].Error == nil || msgs[0].Error.Code != mcp.CodeUnsupportedProtocolVersion {
		return false
	}
	versions := supportedOf(msgs[0].Error)
	return len(versions) > 0 && !OffersModern(versions)
}
