package store

import (
	"encoding/json"
	"strings"
)

// Field spellings, in order of preference.
var (
	// idKeys: session-specific names before the generic "id", which in a map
	// keyed by session id may be a row number.
	idKeys       = []string{"mcp_session_id", "mcpSessionId", "session_id", "sessionId", "id"}
	clientKeys   = []string{"client_name", "clientName", "client"}
	clientObjs   = []string{"clientInfo", "client_info", "client"}
	activityKeys = []string{
		"last_activity", "lastActivity", "last_active", "lastActive", "last_seen", "lastSeen",
		"last_used", "lastUsed", "last_request_at", "lastRequestAt", "updated_at", "updatedAt",
	}
	createdKeys = []string{"created_at", "createdAt", "created", "started_at", "startedAt"}
)

// build turns entries into sessions sorted by ID. Entries without an id, and
// repeats of an id (the latest activity wins), are counted as skipped.
func build(entries []entry) ([]Session, int) {
	out := make([]Session, 0, len(entries))
	skipped := 0
	for _, e := range entries {
		s, ok := session(e)
		if !ok {
			skipped++
			continue
		}
		out = append(out, s)
	}
	sortSessions(out)
	return dedup(out, skipped)
}

// dedup keeps one session per id in a sorted list; Go's decoder already
// merged repeated map keys, so repeats come from lists or id fields.
func dedup(sorted []Session, skipped int) ([]Session, int) {
	w := 0
	for _, s := range sorted {
		if w > 0 && sorted[w-1].ID == s.ID {
			skipped++
			if s.LastActivity.After(sorted[w-1].LastActivity) {
				sorted[w-1] = s
			}
			continue
		}
		sorted[w] = s
		w++
	}
	return sorted[:w], skipped
}

func session(e entry) (Session, bool) {
	id := sessionID(e)
	if strings.TrimSpace(id) == "" {
		return Session{}, false
	}
	return Session{
		ID:           id,
		Client:       clientName(e.obj),
		LastActivity: firstTime(e.obj, activityKeys),
		Created:      firstTime(e.obj, createdKeys),
	}, true
}

// sessionID prefers a session-specific field, then the map key, then "id".
func sessionID(e entry) string {
	generic := ""
	for _, k := range idKeys {
		id := scalarString(e.obj[k])
		if id == "" {
			continue
		}
		if k != "id" {
			return id
		}
		generic = id
	}
	if e.key != "" {
		return e.key
	}
	return generic
}

func clientName(obj map[string]any) string {
	for _, k := range clientKeys {
		if s, ok := obj[k].(string); ok && s != "" {
			return s
		}
	}
	for _, k := range clientObjs {
		if inner, ok := obj[k].(map[string]any); ok {
			if s, ok := inner["name"].(string); ok && s != "" {
				return s
			}
		}
	}
	return ""
}

// scalarString is a string or number field's text; ids may be numbers.
func scalarString(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return t.String()
	}
	return ""
}
