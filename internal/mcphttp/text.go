package mcphttp

import (
	"cmp"
	"slices"
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
		return clip(resp.Redact(resp.RPC.Error.Error()))
	}
	if len(resp.Body) == 0 {
		return "empty body"
	}
	return clip(resp.Redact(string(resp.Body)))
}

// Redact returns s (something the server said) with the session ids of
// the exchange masked and the configured header values (API keys, bearer
// tokens from ${ENV}) replaced by "[redacted]", wherever the server echoed
// them: reasons end up in journals, notifications and probe reports.
func (r Response) Redact(s string) string {
	for _, v := range r.secrets {
		s = strings.ReplaceAll(s, v, "[redacted]")
	}
	for _, id := range [...]string{r.sentSession, r.SessionID} {
		if id != "" {
			s = strings.ReplaceAll(s, id, mask.ID(id))
		}
	}
	return s
}

// minSecret: shorter header values (and credential parts) are not hidden,
// so that a header like "X-Mode: json" does not blank every "json" a
// server says; a credential that short protects nothing anyway.
const minSecret = 8

// secretsOf lists the header values to hide, longest first: each value,
// and its last word on its own ("Bearer <token>" echoed as "<token>").
func secretsOf(headers map[string]string) []string {
	var out []string
	for _, v := range headers {
		out = append(out, v)
		if f := strings.Fields(v); len(f) > 1 {
			out = append(out, f[len(f)-1])
		}
	}
	out = slices.DeleteFunc(out, func(s string) bool { return len(s) < minSecret })
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return slices.Compact(out)
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
