package classify

import (
	"strings"
	"unicode/utf8"

	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

// Session ids are found after the word "session" (any case) in these shapes:
//
//	mcp-session-id: X    Mcp-Session-Id=X    "mcp-session-id":"X"
//	session_id=X         session-id: X       "sessionId":"X"   sessionID=X
//	session=X            "session":"X"
//	session X            session "X"          (bare: X must contain a digit)
//
// X is a run of [A-Za-z0-9_-] (uuid, hex, base64url) of 8..256 bytes. A keyed
// X must contain a digit or be at least 16 long, so "undefined" or "missing"
// is not taken for an id.
const (
	minSessionLen = 8
	maxSessionLen = 256
	longSession   = 16
)

// SessionID returns the first session id named on the line, or "".
func SessionID(line []byte) string {
	if s, e, ok := nextSession(line, 0); ok {
		return string(line[s:e])
	}
	return ""
}

// nextSession finds the first id span at or after from.
func nextSession(l []byte, from int) (start, end int, ok bool) {
	for i := from; ; {
		j := indexFold(l[i:], "session")
		if j < 0 {
			return 0, 0, false
		}
		p := i + j + len("session")
		i = p
		if s, e, ok := sessionAfterWord(l, p); ok {
			return s, e, true
		}
	}
}

// sessionAfterWord parses what follows the word "session" ending at p.
func sessionAfterWord(l []byte, p int) (start, end int, ok bool) {
	keyed := false
	switch {
	case hasFoldAt(l, p, "_id") || hasFoldAt(l, p, "-id"):
		keyed, p = true, p+3
	case hasFoldAt(l, p, "id"):
		keyed, p = true, p+2
	}
	if p < len(l) && (l[p] == '"' || l[p] == '\'') {
		p++ // end of a quoted key
	}
	q := skipBlank(l, p)
	switch {
	case q < len(l) && (l[q] == ':' || l[q] == '='):
		keyed = true
		q = skipBlank(l, q+1)
	case !keyed && q > p:
		// bare "session X"
	default:
		return 0, 0, false
	}
	return idAt(l, q, keyed)
}

// idAt reads the id starting at q (after an optional quote): a run of id
// bytes of minSessionLen..maxSessionLen that holds a digit or, when keyed,
// is at least longSession long.
func idAt(l []byte, q int, keyed bool) (start, end int, ok bool) {
	if q < len(l) && (l[q] == '"' || l[q] == '\'') {
		q++
	}
	e := q
	digit := false
	for e < len(l) && isIDByte(l[e]) {
		digit = digit || isDigit(l[e])
		e++
	}
	n := e - q
	if n < minSessionLen || n > maxSessionLen || (!digit && (!keyed || n < longSession)) {
		return 0, 0, false
	}
	return q, e, true
}

// Display masking (scan reports) also hides ids in shapes SessionID does
// not take as the line's session, since they may name another session or
// none the watchdog should act on:
//
//	Session not found: X         No valid session ID provided: X
//	sid=X   sid: X   "sid":"X"
//
// that is, after "session" up to maxPhraseWords words of letters and a
// colon, or after the word "sid" and ':' or '='. X follows SessionID's
// keyed rules.
const maxPhraseWords = 3

// nextMaskable finds the first span at or after from that display masking
// hides: a SessionID shape, a session phrase or a sid.
func nextMaskable(l []byte, from int) (start, end int, ok bool) {
	best := -1
	for _, find := range [...]func([]byte, int) (int, int, bool){nextSession, nextPhrase, nextSID} {
		if s, e, found := find(l, from); found && (best < 0 || s < start) {
			start, end, best = s, e, s
		}
	}
	return start, end, best >= 0
}

// nextPhrase finds "session <words>: X".
func nextPhrase(l []byte, from int) (start, end int, ok bool) {
	for i := from; ; {
		j := indexFold(l[i:], "session")
		if j < 0 {
			return 0, 0, false
		}
		i += j + len("session")
		if s, e, ok := phraseAfterWord(l, i); ok {
			return s, e, true
		}
	}
}

// phraseAfterWord reads blank-separated words of letters from p, then a
// colon and the id.
func phraseAfterWord(l []byte, p int) (start, end int, ok bool) {
	for w := 0; w < maxPhraseWords; w++ {
		q := skipBlank(l, p)
		if q == p {
			return 0, 0, false // a word must follow a blank: not "sessions:"
		}
		e := q
		for e < len(l) && l[e]|0x20 >= 'a' && l[e]|0x20 <= 'z' {
			e++
		}
		if e == q {
			return 0, 0, false
		}
		if e < len(l) && l[e] == ':' {
			return idAt(l, skipBlank(l, e+1), true)
		}
		p = e
	}
	return 0, 0, false
}

// nextSID finds the word "sid" (any case, not inside a word) keyed with
// ':' or '=', quoted or not.
func nextSID(l []byte, from int) (start, end int, ok bool) {
	for i := from; ; {
		j := indexFold(l[i:], "sid")
		if j < 0 {
			return 0, 0, false
		}
		at := i + j
		i = at + len("sid")
		if at > 0 && isIDByte(l[at-1]) || i < len(l) && isIDByte(l[i]) {
			continue
		}
		p := i
		if p < len(l) && (l[p] == '"' || l[p] == '\'') {
			p++
		}
		q := skipBlank(l, p)
		if q < len(l) && (l[q] == ':' || l[q] == '=') {
			if s, e, ok := idAt(l, skipBlank(l, q+1), true); ok {
				return s, e, true
			}
		}
	}
}

func hasFoldAt(l []byte, p int, s string) bool {
	return p+len(s) <= len(l) && equalFold(l[p:p+len(s)], s)
}

func skipBlank(l []byte, p int) int {
	for p < len(l) && (l[p] == ' ' || l[p] == '\t') {
		p++
	}
	return p
}

func isIDByte(c byte) bool {
	return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'z' || c == '-' || c == '_'
}

// MaskSession hides a session id for display; the one rule lives in
// internal/mask (first and last four characters around "…" for ids of 16
// and more, fewer or a short hash for shorter ones).
func MaskSession(id string) string { return mask.ID(id) }

// MaxText is about how many bytes of a line a Finding keeps.
const MaxText = 300

// displayText drops colour codes, masks every session id on the line and
// any of known, then truncates it to about MaxText bytes and makes it
// printable (valid UTF-8, no control bytes).
func displayText(l []byte, known ...string) string {
	l = stripANSI(l)
	// Masking shortens ids, so look somewhat past MaxText, but not at a whole
	// long line. Cut before a token that straddles the limit, so no part of
	// an id escapes masking.
	cut := false
	if limit := 8 * MaxText; len(l) > limit {
		for limit > 0 && isIDByte(l[limit-1]) && isIDByte(l[limit]) {
			limit--
		}
		l, cut = l[:limit], true
	}
	var b strings.Builder
	ids := known
	last := 0
	for p := 0; ; {
		s, e, ok := nextMaskable(l, p)
		if !ok {
			break
		}
		ids = append(ids, string(l[s:e]))
		b.Write(l[last:s])
		b.WriteString(MaskSession(string(l[s:e])))
		last, p = e, e
	}
	b.Write(l[last:])
	out := b.String()
	for _, id := range ids {
		if id != "" {
			out = strings.ReplaceAll(out, id, MaskSession(id)) // bare mentions elsewhere
		}
	}
	return printable(out, MaxText, cut)
}

// printable truncates s to at most max bytes on a rune boundary (marking a
// cut, this one or an earlier one, with "…"), turns tabs into blanks and
// escapes what a terminal would act on (textsafe.Escape: control and bidi
// characters, escape sequences, invalid UTF-8).
func printable(s string, max int, cut bool) string {
	if len(s) > max {
		n := max
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s, cut = s[:n], true
	}
	s = textsafe.Escape(strings.ReplaceAll(s, "\t", " "))
	if cut {
		s += "…"
	}
	return s
}

// displaySession is the id a report names for a line: SessionID's, else
// the first one display masking hides ("Session not found: X").
func displaySession(l []byte) string {
	if id := SessionID(l); id != "" {
		return id
	}
	if s, e, ok := nextMaskable(l, 0); ok {
		return string(l[s:e])
	}
	return ""
}
