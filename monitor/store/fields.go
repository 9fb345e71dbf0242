package store

import (
	"cmp"
	"encoding/json"
	"slices"
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

// acc gathers the sessions of one store (or of one candidate wrapper in
// it). It holds at most twice its limit at a time: when full, it keeps the
// limit's most recently active sessions and counts the rest as truncated.
type acc struct {
	limit     int
	sessions  []Session
	objects   int   // entries that were objects, sessions or not
	skipped   int   // entries without an id
	truncated int   // sessions cut at the limit
	shape     error // set instead of sessions: the value cannot be a store
}

func newAcc(limit int) *acc { return &acc{limit: limit} }

func (a *acc) add(e entry) {
	a.objects++
	s, ok := session(e)
	if !ok {
		a.skipped++
		return
	}
	a.sessions = append(a.sessions, s)
	if len(a.sessions) >= 2*a.limit {
		a.cut()
	}
}

// cut keeps the limit's most recently active sessions (ties by id, so the
// same file always keeps the same ones).
func (a *acc) cut() {
	if len(a.sessions) <= a.limit {
		return
	}
	slices.SortStableFunc(a.sessions, func(x, y Session) int {
		if c := y.LastActivity.Compare(x.LastActivity); c != 0 {
			return c
		}
		return cmp.Compare(x.ID, y.ID)
	})
	a.truncated += len(a.sessions) - a.limit
	clear(a.sessions[a.limit:])
	a.sessions = a.sessions[:a.limit]
}

// result sorts by ID and drops repeated ids (the latest activity wins).
func (a *acc) result() (Result, error) {
	if a.shape != nil {
		return Result{}, a.shape
	}
	a.cut()
	sortSessions(a.sessions)
	sessions, skipped := dedup(a.sessions, a.skipped)
	return Result{Sessions: sessions, Skipped: skipped, Truncated: a.truncated}, nil
}

// dedup keeps one session per id in a sorted list; repeats come from
// lists, id fields or a map key written twice.
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
