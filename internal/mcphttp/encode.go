package mcphttp

import (
	"encoding/json"
	"fmt"
)

// encode builds the JSON-RPC body. id "" makes a notification.
func (c *Client) encode(req Request, id string) ([]byte, error) {
	if req.Method == "" {
		return nil, fmt.Errorf("mcphttp: request without a method")
	}
	params, err := c.params(req)
	if err != nil {
		return nil, err
	}
	msg := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      string          `json:"id,omitempty"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params,omitempty"`
	}{"2.0", id, req.Method, params}
	return json.Marshal(msg)
}

// params marshals req.Params and, for a modern request, fills in the _meta
// triple the 2026-07-28 protocol requires on every call (without it the Go
// SDK answers 400 -32602).
func (c *Client) params(req Request) (json.RawMessage, error) {
	var raw json.RawMessage
	if req.Params != nil {
		b, err := json.Marshal(req.Params)
		if err != nil {
			return nil, fmt.Errorf("mcphttp: %s params: %w", req.Method, err)
		}
		raw = b
	}
	if !req.Modern {
		return raw, nil
	}
	obj := map[string]json.RawMessage{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("mcphttp: %s params must be an object for a modern request: %w", req.Method, err)
		}
	}
	meta := map[string]any{}
	if m, ok := obj["_meta"]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, fmt.Errorf("mcphttp: %s params._meta must be an object: %w", req.Method, err)
		}
	}
	setDefault(meta, MetaProtocolVersion, req.protocolVersion())
	setDefault(meta, MetaClientInfo, map[string]string{"name": c.name, "version": c.version})
	setDefault(meta, MetaClientCapabilities, map[string]any{})
	b, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("mcphttp: %s params._meta: %w", req.Method, err)
	}
	obj["_meta"] = b
	return json.Marshal(obj)
}

func setDefault(m map[string]any, k string, v any) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}
