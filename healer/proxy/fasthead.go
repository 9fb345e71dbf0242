package proxy

import (
	"bytes"
	"encoding/binary"
	"net/http"
)

// The fast path reads a host's request head itself: the request line and
// the few headers the proxy acts on (where it goes, whose session, how long
// the body is, whether the connection stays). Every other header line is
// passed on to the server byte for byte. A head it does not fully
// understand is not guessed at: the request goes to the general path
// (net/http), which answers it as before.

// maxFastLines bounds the header lines of a head the fast path takes.
const maxFastLines = 64

// lineKind is what the fast path does with one header line.
type lineKind uint8

const (
	lineKept    lineKind = iota // passed on, and kept for replays and pings (keptHeader)
	linePassed                  // passed on, not kept (Accept, Content-Type, ...)
	lineDropped                 // of this hop only (Keep-Alive, TE, Accept-Encoding, ...)
	lineHost
	lineOrigin
	lineSession
	lineLength
	lineConnection
)

// headLine is one header line of a head: offsets into it (a head is at
// most a read buffer long).
type headLine struct {
	start, colon, vstart, vend, end int32 // name head[start:colon], value head[vstart:vend], next line at end
	kind                            lineKind
}

// reqHead is a host's request head as the fast path reads it. Its slices
// point into the connection's read buffer: valid until the next read.
type reqHead struct {
	raw            []byte // the whole head, the blank line included
	method, target []byte
	host, origin   []byte
	session        []byte
	length         int64 // Content-Length; -1 when absent
	hasOrigin      bool
	close          bool // Connection: close
	lines          [maxFastLines]headLine
	n              int // lines used
	kept           int // lines of kind lineKept
}

// Why a request takes the general path. Each is a label value of the
// proxy's request counter (Paths), so the set is closed.
const (
	whyMethod     = "method"     // not a POST: GET streams, DELETE, ...
	whyTarget     = "target"     // not the proxy's endpoint (no secret, a query, absolute form)
	whyVersion    = "version"    // not HTTP/1.1 (HTTP/1.0, an HTTP/2 preface)
	whyFraming    = "framing"    // no Content-Length (chunked upload), Expect, Upgrade, or over the size limit
	whyHeader     = "header"     // a header the fast path does not take (malformed, repeated, folded, Origin, Connection options)
	whyHeadSize   = "head_size"  // the head does not fit the connection's read buffer
	whyGuard      = "guard"      // a Host that is not loopback, an Origin of a web page: the general path refuses it
	whyServer     = "server"     // the server takes no fast path (servesFast: an https URL, a server without sessions, ...)
	whyConnection = "connection" // the connection was given to the general path by an earlier request
)

// generalReasons lists every reason, for the counter's series.
func generalReasons() []string {
	return []string{whyMethod, whyTarget, whyVersion, whyFraming, whyHeader, whyHeadSize, whyGuard, whyServer, whyConnection}
}

// parseHead reads a complete request head (ending in an empty line). It
// returns "" when the fast path may serve it, otherwise why not.
func parseHead(raw []byte, h *reqHead) string {
	why, n := scanHead(raw, h)
	if why == "" && n != len(raw) {
		return whyHeader // no blank line, or bytes after it
	}
	return why
}

// scanHead reads the request head at the start of buf, in one pass over
// its bytes (each line's name, colon, value and end found as they are
// checked). It returns the head's length and "" when the fast path may
// serve it, or why not as soon as that is known; 0 and "" while buf holds
// only the start of a head that may yet be served.
func scanHead(buf []byte, h *reqHead) (why string, n int) {
	h.reset(buf)
	eol := bytes.IndexByte(buf, '\n')
	if eol < 0 {
		return "", 0
	}
	if eol < 1 || buf[eol-1] != '\r' {
		return whyHeader, 0
	}
	if why := h.requestLine(buf[:eol-1]); why != "" {
		return why, 0
	}
	for at := eol + 1; ; {
		switch {
		case at+1 >= len(buf):
			return "", 0
		case buf[at] == '\r' && buf[at+1] == '\n': // the blank line
			h.raw = buf[:at+2]
			return h.check(), at + 2
		case h.n == maxFastLines:
			return whyHeader, 0
		}
		l, ok := scanField(buf, at)
		if !ok {
			return whyHeader, 0 // no name, a space before the colon, a folded line, a control byte, a bare LF
		}
		if l.end == 0 {
			return "", 0
		}
		if why := h.line(buf, l); why != "" {
			return why, 0
		}
		at = int(l.end)
	}
}

// reset readies h for raw, without clearing its lines (n says how many
// are used): the struct is kilobytes, and zeroing it was a tenth of a
// request's parse.
func (h *reqHead) reset(raw []byte) {
	h.raw, h.method, h.target, h.host, h.origin, h.session = raw, nil, nil, nil, nil, nil
	h.length, h.hasOrigin, h.close, h.n, h.kept = -1, false, false, 0, 0
}

// requestLine reads "METHOD SP target SP HTTP/1.1".
func (h *reqHead) requestLine(l []byte) string {
	sp := bytes.IndexByte(l, ' ')
	if sp < 1 || !isToken(l[:sp]) {
		return whyHeader
	}
	h.method = l[:sp]
	rest := l[sp+1:]
	sp = bytes.IndexByte(rest, ' ')
	if sp < 1 {
		return whyHeader
	}
	h.target = rest[:sp]
	if string(rest[sp+1:]) != "HTTP/1.1" {
		return whyVersion
	}
	if string(h.method) != http.MethodPost {
		return whyMethod
	}
	return ""
}

// line takes the header line l of raw.
func (h *reqHead) line(raw []byte, l headLine) string {
	start, colon := int(l.start), int(l.colon)
	l.kind = kindOf(raw[start:colon])
	v := raw[l.vstart:l.vend]
	switch l.kind {
	case lineKept:
		h.kept++
	case lineDropped:
		if changesFraming(raw[start:colon]) {
			return whyFraming
		}
	case lineHost:
		if h.host != nil {
			return whyHeader
		}
		h.host = v
	case lineOrigin:
		if h.hasOrigin {
			return whyHeader
		}
		h.origin, h.hasOrigin = v, true
	case lineSession:
		if h.session != nil || len(v) == 0 {
			return whyHeader
		}
		h.session = v
	case lineLength:
		n, ok := parseLength(v)
		if !ok || h.length >= 0 {
			return whyHeader
		}
		h.length = n
	case lineConnection:
		if !connectionTokens(v, &h.close) {
			return whyHeader
		}
	}
	h.lines[h.n] = l
	h.n++
	return ""
}

// splitField reads the field line raw[start:end] (its CR or LF
// excluded): where its colon is and its value (without the spaces around
// it), and whether it is a field at all: a token name, then a value with
// no control byte. (An answer's lines, which may end in a bare LF.)
func splitField(raw []byte, start, end int) (colon, vs, ve int, ok bool) {
	colon = bytes.IndexByte(raw[start:end], ':')
	if colon < 1 || !isToken(raw[start:start+colon]) {
		return 0, 0, 0, false
	}
	colon += start
	vs, ve = colon+1, end
	for vs < ve && (raw[vs] == ' ' || raw[vs] == '\t') {
		vs++
	}
	for ve > vs && (raw[ve-1] == ' ' || raw[ve-1] == '\t') {
		ve--
	}
	return colon, vs, ve, fieldValue(raw[vs:ve])
}

// scanField reads the field line at raw[start:] ending in CRLF, in one
// pass: a token name, its colon, then a value with no control byte but
// tab, to the CR. It returns the line (its kind unset), with end 0 when
// raw ends before the line does; !ok: not a field line.
func scanField(raw []byte, start int) (l headLine, ok bool) {
	i := start
	for i < len(raw) && tokenChar[raw[i]] {
		i++
	}
	if i == len(raw) {
		return headLine{}, true
	}
	if i == start || raw[i] != ':' {
		return headLine{}, false
	}
	colon := i
	for i++; i < len(raw) && (raw[i] == ' ' || raw[i] == '\t'); i++ {
	}
	vs := i
	for i < len(raw) && valueChar[raw[i]] {
		i++
	}
	switch {
	case i+1 >= len(raw):
		return headLine{}, i == len(raw) || raw[i] == '\r'
	case raw[i] != '\r' || raw[i+1] != '\n':
		return headLine{}, false
	}
	ve := i
	for ve > vs && (raw[ve-1] == ' ' || raw[ve-1] == '\t') {
		ve--
	}
	return headLine{start: int32(start), colon: int32(colon), vstart: int32(vs), vend: int32(ve), end: int32(i + 2)}, true
}

// check is what the whole head must be once read.
func (h *reqHead) check() string {
	switch {
	case h.host == nil:
		return whyHeader
	case h.length < 0:
		return whyFraming
	}
	return ""
}

// name and value of line i.
func (h *reqHead) name(i int) []byte {
	l := h.lines[i]
	return h.raw[l.start:l.colon]
}

func (h *reqHead) value(i int) []byte {
	l := h.lines[i]
	return h.raw[l.vstart:l.vend]
}

// whole is line i as it came, its CRLF included.
func (h *reqHead) whole(i int) []byte {
	l := h.lines[i]
	return h.raw[l.start:l.end]
}

// header is the head's headers as net/http would give them, for the
// rare steps that take an http.Header (a replay, an adopted session).
func (h *reqHead) header() http.Header {
	out := http.Header{}
	for i := range h.n {
		out.Add(string(h.name(i)), string(h.value(i)))
	}
	return out
}

// kindOf classifies a header name (any case): by its length and first
// letter, then one comparison.
func kindOf(name []byte) lineKind {
	if len(name) == 0 {
		return lineKept
	}
	k, known := lineKept, ""
	switch first := name[0] | 0x20; len(name) {
	case 2:
		k, known = lineDropped, "te"
	case 4:
		k, known = lineHost, "host"
	case 6:
		switch first {
		case 'a':
			k, known = linePassed, "accept"
		case 'o':
			k, known = lineOrigin, "origin"
		case 'e':
			k, known = lineDropped, "expect" // and its request goes to the general path: changesFraming
		}
	case 7:
		switch first {
		case 'u':
			k, known = lineDropped, "upgrade"
		case 't':
			k, known = lineDropped, "trailer"
		}
	case 10:
		k, known = kindOf10(first)
	default:
		k, known = kindOfLong(first, len(name))
	}
	if known == "" || !equalFold(name, known) {
		return lineKept
	}
	return k
}

func kindOf10(first byte) (lineKind, string) {
	switch first {
	case 'c':
		return lineConnection, "connection"
	case 'k':
		return lineDropped, "keep-alive"
	case 'u':
		return linePassed, "user-agent"
	case 'm':
		return linePassed, "mcp-method"
	}
	return lineKept, ""
}

// kindOfLong is kindOf's candidate for a name over 10 bytes.
func kindOfLong(first byte, n int) (lineKind, string) {
	switch {
	case n == 12 && first == 'c':
		return linePassed, "content-type"
	case n == 14 && first == 'c':
		return lineLength, "content-length"
	case n == 14 && first == 'm':
		return lineSession, "mcp-session-id"
	case n == 15 && first == 'a':
		return lineDropped, "accept-encoding"
	case n == 16 && first == 'p':
		return lineDropped, "proxy-connection"
	case n == 17 && first == 't':
		return lineDropped, "transfer-encoding"
	case n == 18 && first == 'p':
		return lineDropped, "proxy-authenticate"
	case n == 19 && first == 'p':
		return lineDropped, "proxy-authorization"
	case n == 20 && first == 'm':
		return linePassed, "mcp-protocol-version"
	}
	return lineKept, ""
}

// changesFraming: of the headers of one hop, those that change how the
// request is read (a chunked body, a 100-continue, another protocol).
// Their requests take the general path rather than lose them.
func changesFraming(name []byte) bool {
	return equalFold(name, "transfer-encoding") || equalFold(name, "expect") || equalFold(name, "upgrade")
}

// connectionTokens reads a Connection header: the fast path takes
// keep-alive and close only (other tokens name headers to drop, which the
// general path knows how to do).
func connectionTokens(v []byte, close *bool) bool {
	for len(v) > 0 {
		var tok []byte
		if i := bytes.IndexByte(v, ','); i >= 0 {
			tok, v = v[:i], v[i+1:]
		} else {
			tok, v = v, nil
		}
		tok = bytes.Trim(tok, " \t")
		switch {
		case equalFold(tok, "close"):
			*close = true
		case equalFold(tok, "keep-alive"), len(tok) == 0:
		default:
			return false
		}
	}
	return true
}

// parseLength reads a Content-Length value: digits only, no sign, at most
// 18 of them.
func parseLength(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// equalFold compares b with s, made of lower-case letters and '-' only,
// ignoring b's case. Setting bit 5 lowers a capital and leaves '-' as it
// is; the only other byte it turns into one of s's is CR into '-', and
// neither a name (a token) nor a token value holds a CR.
//
// Eight bytes are compared at once: every header name the fast path
// knows is one or two words long.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])|0x2020202020202020 != word(s[i:]) {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i]|0x20 != s[i] {
			return false
		}
	}
	return true
}

// word is s's first eight bytes, little-endian (the compiler makes it one
// load).
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// tokenChar marks the bytes of an RFC 9110 token.
var tokenChar = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

// valueChar marks the bytes of a field value: all but the control bytes,
// tab excepted (RFC 9110 5.5), so no CR, LF or NUL can be smuggled on.
var valueChar = func() (t [256]bool) {
	for c := range 256 {
		t[c] = (c >= ' ' || c == '\t') && c != 0x7f
	}
	return t
}()

func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !tokenChar[c] {
			return false
		}
	}
	return true
}

// fieldValue reports whether v is a valid field value: no control bytes
// but tab (RFC 9110 5.5), so no CR, LF or NUL can be smuggled on.
func fieldValue(v []byte) bool {
	for _, c := range v {
		if !valueChar[c] {
			return false
		}
	}
	return true
}

// canonical writes name's canonical form (as net/http keys headers) into
// buf and returns it; nil when it does not fit.
func canonical(buf []byte, name []byte) []byte {
	if len(name) > len(buf) {
		return nil
	}
	upper := true
	for i, c := range name {
		switch {
		case upper && 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		case !upper && 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		buf[i] = c
		upper = c == '-'
	}
	return buf[:len(name)]
}
