package mask

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

// Redacted stands in for every part of a URL that may be a credential.
const Redacted = "REDACTED"

// Unparseable stands in for a URL of which not even scheme and host can be
// told.
const Unparseable = "<unparseable URL>"

// URL returns a configured URL fit to print in an error, a journal field,
// status, doctor or probe output: the user info, every query value and the
// fragment are replaced by REDACTED, query keys kept:
//
//	http://user:pw@host/mcp?token=abc&x  →  http://REDACTED@host/mcp?token=REDACTED&REDACTED
//
// A URL that does not parse is never shown whole: only scheme://host/…
// when both can be found, else "<unparseable URL>". The result is escaped
// (textsafe.Escape).
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return roughURL(raw)
	}
	if u.User == nil && u.RawQuery == "" && !u.ForceQuery && u.Fragment == "" && u.RawFragment == "" {
		return textsafe.Escape(raw) // the address alone: shown as written
	}
	var b strings.Builder
	if u.Scheme != "" {
		b.WriteString(u.Scheme + ":")
	}
	if u.Host != "" || u.User != nil {
		b.WriteString("//")
	}
	if u.User != nil {
		b.WriteString(Redacted + "@")
	}
	b.WriteString(u.Host)
	b.WriteString(u.EscapedPath())
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteString("?" + redactQuery(u.RawQuery))
	}
	if u.Fragment != "" || u.RawFragment != "" {
		b.WriteString("#" + Redacted)
	}
	return textsafe.Escape(b.String())
}

// redactQuery keeps each key=value pair's key, in order.
func redactQuery(q string) string {
	if q == "" {
		return ""
	}
	parts := strings.Split(q, "&")
	for i, p := range parts {
		if k, _, ok := strings.Cut(p, "="); ok {
			parts[i] = k + "=" + Redacted
		} else if p != "" {
			parts[i] = Redacted // a bare value may be the token itself
		}
	}
	return strings.Join(parts, "&")
}

// roughURL finds scheme and host in a URL that does not parse.
func roughURL(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || !validScheme(scheme) {
		return Unparseable
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:] // drop the user info
	}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 && !strings.HasSuffix(rest, "]") && !digits(rest[i+1:]) {
		rest = rest[:i] // not a port: perhaps a password with the host missing
	}
	if rest == "" || strings.ContainsAny(rest, " %\\") {
		return Unparseable
	}
	return textsafe.Escape(scheme + "://" + rest + "/…")
}

func digits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func validScheme(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for i, c := range []byte(s) {
		letter := c|0x20 >= 'a' && c|0x20 <= 'z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// maxQuoted: a part of url.Parse's reason in quotes ("invalid URL escape
// \"%zz\"", "invalid port \":80x\" after host") longer than this may be a
// credential (a password taken for a port when the host is missing) and is
// not shown.
const maxQuoted = 4

// ParseURL is url.Parse with an error fit to print: it names the URL as URL
// shows it, never whole, and says what was wrong, quoting at most 4
// characters of the URL. The error wraps url.Parse's reason (an
// *url.EscapeError, url.InvalidHostError, ...), not its *url.Error, whose
// text holds the whole URL.
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err == nil {
		return u, nil
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return nil, &urlError{shown: URL(raw), reason: textsafe.Escape(shortQuotes(err.Error())), err: err}
}

// shortQuotes replaces each part of s in double quotes that is longer than
// maxQuoted with "…".
func shortQuotes(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '"')
		if j < 0 {
			break
		}
		b.WriteString(s[:i+1])
		if q := s[i+1 : i+1+j]; len([]rune(q)) <= maxQuoted {
			b.WriteString(q)
		} else {
			b.WriteString("…")
		}
		b.WriteByte('"')
		s = s[i+2+j:]
	}
	b.WriteString(s)
	return b.String()
}

type urlError struct {
	shown, reason string
	err           error
}

func (e *urlError) Error() string { return fmt.Sprintf("%s: %s", e.shown, e.reason) }
func (e *urlError) Unwrap() error { return e.err }
