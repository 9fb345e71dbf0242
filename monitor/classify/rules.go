package classify

import (
	"bytes"
	"slices"
)

// rule is one row of the classification table. A line matches the row when
// it contains any of lits and, when set, when(line) holds. Every literal is
// also a prefilter literal (see Literals), so a line that contains none of
// them is never handed to a when function. Rows are tried in order; the
// first that matches names the line.
type rule struct {
	name string
	kind Kind
	lits []string
	when func(line []byte) bool
	mask uint64 // bit per literal index in table.lits; set by newTable
}

// table is the immutable classification table with its prefilter.
type table struct {
	rules []rule
	lits  []string
	match *matcher
}

// std is built once at package initialisation and only read afterwards.
var std = newTable(rules())

// rules returns the table. The literals are case-sensitive so that the scan
// and `grep -F` (without -i) select the same lines; the spellings seen in
// the wild are listed separately instead.
func rules() []rule {
	return []rule{
		// A GET SSE stream 404 is only a hint (some servers answer GET 404
		// on a live session; docs/DESIGN.md, "Proxy"): listed first so such a
		// line is never taken for a loss.
		{name: "sse_stream_404", kind: SSEStream404,
			lits: []string{"Failed to open SSE stream"}, when: saysNotFound},
		// TypeScript SDK client: "Streamable HTTP error: Error POSTing to
		// endpoint: <body>" (1.x) or "... (HTTP 404): <body>" (older). A 404
		// to a POST is a lost session unless it is a modern -32601.
		{name: "post_404", kind: SessionLost,
			lits: []string{"Error POSTing to endpoint"},
			when: func(l []byte) bool { return saysNotFound(l) && !methodNotFound(l) }},
		{name: "rmcp_session_not_found", kind: SessionLost,
			lits: []string{"Session not found"},
			when: func(l []byte) bool { return bytes.Contains(l, []byte("Not Found: Session not found")) }},
		{name: "jsonrpc_32001_session_not_found", kind: SessionLost,
			lits: []string{"Session not found"}, when: hasNumber("32001")},
		{name: "jsonrpc_32600_session_not_found", kind: SessionLost,
			lits: []string{"Session not found"}, when: hasNumber("32600")},
		{name: "session_not_found", kind: SessionLost,
			lits: []string{"Session not found", "session not found"},
			when: func(l []byte) bool { return !methodNotFound(l) }},
		// TypeScript SDK example servers answer an unknown session with 400.
		{name: "no_valid_session_id", kind: SessionLost,
			lits: []string{"No valid session ID provided"}},
		{name: "session_terminated", kind: SessionLost,
			lits: []string{"Session terminated", "session terminated"}},
		// Nowledge Mem at start: "MCP session idle timeout and restart
		// restore store configured seconds=43200 store_path=...".
		{name: "idle_timeout_configured", kind: IdleTimeoutAnnounced,
			lits: []string{"MCP session idle timeout"}},
		{name: "legacy_session_header", kind: LegacyHeaderRejected,
			lits: []string{"Mcp-Session-Id", "mcp-session-id", "MCP-Session-Id"},
			when: headerRejected},
		{name: "legacy_protocol_version", kind: LegacyHeaderRejected,
			lits: []string{"Unsupported protocol version", "unsupported protocol version", "not supported by this server"},
			when: legacyVersionRejected},
		// A server's own account of a session's end, with its reason:
		// "MCP session closed session_id=<id> reason=idle_timeout".
		{name: "session_closed", kind: SessionClosed,
			lits: []string{"session closed", "Session closed"},
			when: func(l []byte) bool { return endReason(l) != "" }},
		{name: "reconnected", kind: Reconnected,
			lits: []string{"reconnected", "Reconnected"}, when: reconnectedNotNegated},
		{name: "mcp_server_connected", kind: Reconnected,
			lits: []string{"MCP server connected"}},
		{name: "connection_reestablished", kind: Reconnected,
			lits: []string{"connection re-established", "Connection re-established"}},
	}
}

func newTable(rs []rule) *table {
	t := &table{rules: rs}
	for i := range t.rules {
		r := &t.rules[i]
		for _, l := range r.lits {
			k := slices.Index(t.lits, l)
			if k < 0 {
				t.lits = append(t.lits, l)
				k = len(t.lits) - 1
			}
			r.mask |= 1 << uint(k)
		}
	}
	t.match = newMatcher(t.lits)
	return t
}

// Literals returns the prefilter literals, case-sensitive, in table order.
// A line can only be classified if it contains one of them, so
// `grep -F -c -e L1 -e L2 ...` counts exactly the lines the scan looks at.
func Literals() []string { return slices.Clone(std.lits) }

// saysNotFound: the line reports HTTP 404 or "Not Found".
func saysNotFound(l []byte) bool {
	return hasNumber("404")(l) || indexFold(l, "not found") >= 0
}

// methodNotFound: JSON-RPC -32601, what a modern (2026-07-28) server answers
// a legacy ping with; the session is not lost.
func methodNotFound(l []byte) bool {
	return hasNumber("32601")(l) || indexFold(l, "method not found") >= 0
}

// hasNumber returns a test for num standing alone (no digit either side),
// so that "404" does not match inside "14042" or an id.
func hasNumber(num string) func([]byte) bool {
	return func(l []byte) bool {
		for i := 0; ; {
			j := bytes.Index(l[i:], []byte(num))
			if j < 0 {
				return false
			}
			s, e := i+j, i+j+len(num)
			if (s == 0 || !isDigit(l[s-1])) && (e == len(l) || !isDigit(l[e])) {
				return true
			}
			i = s + 1
		}
	}
}

// headerRejected: a rejection word within headerNear bytes of a mention of
// the Mcp-Session-Id header, e.g. "rejected legacy Mcp-Session-Id header" or
// "Mcp-Session-Id is not supported". Requiring nearness keeps ordinary
// request logs that print the header from matching by accident.
func headerRejected(l []byte) bool {
	const headerNear = 64
	words := []string{"reject", "not supported", "unsupported", "not allowed", "not accepted"}
	for i := 0; ; {
		j := indexFold(l[i:], "mcp-session-id")
		if j < 0 {
			return false
		}
		s, e := i+j, i+j+len("mcp-session-id")
		win := l[max(0, s-headerNear):min(len(l), e+headerNear)]
		for _, w := range words {
			if indexFold(win, w) >= 0 {
				return true
			}
		}
		i = e
	}
}

// modernEra is the first protocol version without sessions (SEP-2567).
const modernEra = "2026-07-28"

// legacyVersionRejected: the server refuses a protocol version older than
// the stateless era. Spellings handled:
//
//	Bad Request: Unsupported protocol version: 2025-03-26 (supported versions: 2026-07-28)   (TypeScript, server side)
//	Bad Request: Unsupported protocol version (supported versions: 2026-07-28)               (TypeScript, body)
//	protocol version "2025-03-26" is not supported by this server                            (Go SDK)
//
// A rejected version named on the line decides; otherwise a list of
// supported versions that holds only modern ones does.
func legacyVersionRejected(l []byte) bool {
	if i := indexFold(l, "unsupported protocol version"); i >= 0 {
		rest := l[i+len("unsupported protocol version"):]
		named, supported := rest, []byte(nil)
		if j := indexFold(rest, "supported"); j >= 0 {
			named, supported = rest[:j], rest[j:]
		}
		if d := dates(named); len(d) > 0 {
			return d[0] < modernEra
		}
		d := dates(supported)
		return len(d) > 0 && slices.IndexFunc(d, func(v string) bool { return v < modernEra }) < 0
	}
	if i := bytes.Index(l, []byte("not supported by this server")); i >= 0 {
		j := indexFold(l[:i], "protocol version")
		if j < 0 {
			return false
		}
		d := dates(l[j:i])
		return len(d) > 0 && d[len(d)-1] < modernEra
	}
	return false
}

// dates returns every YYYY-MM-DD in b, in order.
func dates(b []byte) []string {
	var out []string
	for i := 0; i+10 <= len(b); i++ {
		c := b[i : i+10]
		if isDigits(c[0:4]) && c[4] == '-' && isDigits(c[5:7]) && c[7] == '-' && isDigits(c[8:10]) &&
			(i == 0 || !isDigit(b[i-1])) && (i+10 == len(b) || !isDigit(b[i+10])) {
			out = append(out, string(c))
			i += 9
		}
	}
	return out
}

// reconnectedNotNegated: some "reconnected" on the line is not right after
// a negation or a future ("not", "cannot", "n't", "never", "be": "could not
// be reconnected", "will be reconnected"). "has been reconnected" counts.
func reconnectedNotNegated(l []byte) bool {
	for i := 0; ; {
		j := indexFold(l[i:], "reconnected")
		if j < 0 {
			return false
		}
		s := i + j
		before := bytes.TrimRight(l[:s], " \t")
		negated := false
		for _, w := range []string{"not", "n't", "never", "be"} {
			if len(before) >= len(w) && equalFold(before[len(before)-len(w):], w) {
				negated = true
				break
			}
		}
		if !negated {
			return true
		}
		i = s + len("reconnected")
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isDigits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return len(b) > 0
}

// indexFold is bytes.Index with ASCII case folding; needle must be lower case.
func indexFold(b []byte, needle string) int {
	n := len(needle)
	if n == 0 {
		return 0
	}
	first := needle[0]
	for i := 0; i+n <= len(b); i++ {
		if b[i]|0x20 != first && b[i] != first {
			continue
		}
		if equalFold(b[i:i+n], needle) {
			return i
		}
	}
	return -1
}

// equalFold compares b with the lower-case ASCII string s, folding b.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c |= 0x20
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
