package mcphttp

import (
	"strings"
	"unicode/utf8"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// sessionPhrases are words that, next to "session", say the server does not
// know or accept the session: "No valid session ID provided", "Session not
// found", "Invalid session", "session expired", "Mcp-Session-Id header is
// required".
var sessionPhrases = [...]string{"not found", "no valid", "invalid", "unknown", "expired", "required", "requires", "missing", "terminated", "no such"}

func sessionComplaint(text string) bool {
	t := strings.ToLower(text)
	if !strings.Contains(t, "session") {
		return false
	}
	for _, p := range sessionPhrases {
		if strings.Contains(t, p) {
			return true
		}
	}
	return false
}

// errText is what a 4xx answer says: the JSON-RPC error message if any, and
// the start of the body.
func errText(resp Response) string {
	var b strings.Builder
	if resp.RPC != nil && resp.RPC.Error != nil {
		b.WriteString(resp.RPC.Error.Message)
		b.WriteByte(' ')
	}
	body := resp.Body
	if len(body) > 4096 {
		body = body[:4096]
	}
	b.Write(body)
	return b.String()
}

// authHeader names the header to configure: X-NMEM-API-Key when the server
// mentions it, Authorization otherwise.
func authHeader(resp Response) string {
	if strings.Contains(strings.ToLower(resp.Header.Get("WWW-Authenticate")+" "+errText(resp)), "x-nmem-api-key") {
		return "X-NMEM-API-Key"
	}
	return "Authorization"
}

// snippet is a short, printable rendering of what the server said.
func snippet(resp Response) string {
	if resp.RPC != nil && resp.RPC.Error != nil {
		return clip(hideIDs(resp, resp.RPC.Error.Error()))
	}
	if len(resp.Body) == 0 {
		return "empty body"
	}
	return clip(hideIDs(resp, string(resp.Body)))
}

// hideIDs masks the session ids of the exchange wherever the server echoed
// them: reasons end up in journals and notifications.
func hideIDs(resp Response, s string) string {
	for _, id := range [...]string{resp.sentSession, resp.SessionID} {
		if id != "" {
			s = strings.ReplaceAll(s, id, mask.ID(id))
		}
	}
	return s
}

// clip keeps the first line, at most 200 bytes, valid UTF-8.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return s
}
