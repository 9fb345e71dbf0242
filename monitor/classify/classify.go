package classify

import (
	"bytes"
	"time"
)

// MaxLine is how much of a line is classified: a longer line is judged by
// its first MaxLine bytes, by Line and by the scan alike.
const MaxLine = 1 << 20

// Match is what Line found on a line.
type Match struct {
	Kind Kind
	// Rule names the table row that matched, e.g. "rmcp_session_not_found".
	Rule string
	// Session is the session id the line names, "" when none. Line
	// returns it whole (the caller may need it to act); scan reports mask it.
	Session string
	// IdleTimeout and StorePath are the seconds= and store_path= fields of an
	// IdleTimeoutAnnounced line; zero when absent.
	IdleTimeout time.Duration
	StorePath   string
	// EndReason is why the server ended the session on a SessionClosed
	// line: EndIdle, EndDeleted or EndShutdown.
	EndReason EndReason
	// Time is the line's own timestamp; zero when it has none.
	Time time.Time
}

// LogLine reports what a log line says about an MCP session, if anything.
// A trailing "\n" or "\r\n" is ignored. Timestamps without a zone are read
// in time.Local; use LineIn to choose.
func LogLine(line []byte) (Match, bool) {
	return classifyLine(line, time.Local, MaxLine)
}

// LogLineIn is LogLine reading zone-less timestamps in loc (nil: time.Local).
func LogLineIn(line []byte, loc *time.Location) (Match, bool) {
	return classifyLine(line, loc, MaxLine)
}

func classifyLine(line []byte, loc *time.Location, maxLine int) (Match, bool) {
	line = clip(line, maxLine)
	lits := std.match.present(line)
	if lits == 0 {
		return Match{}, false
	}
	// The literals must be in the raw line (so the scan's prefilter and
	// LogLine agree); the rest reads the line without colour codes.
	plain := stripANSI(line)
	for i := range std.rules {
		r := &std.rules[i]
		if lits&r.mask == 0 || (r.when != nil && !r.when(plain)) {
			continue
		}
		m := Match{Kind: r.kind, Rule: r.name, Session: SessionID(plain)}
		if !bytes.Contains(line, []byte(m.Session)) {
			m.Session = "" // split by colour codes: not trusted
		}
		if loc == nil {
			loc = time.Local
		}
		m.Time, _ = ParseTime(plain, loc)
		switch r.kind {
		case IdleTimeoutAnnounced:
			m.IdleTimeout, m.StorePath = idleFields(plain)
		case SessionClosed:
			m.EndReason = endReason(plain)
		}
		return m, true
	}
	return Match{}, false
}

// clip keeps the first maxLine bytes and drops a trailing line ending.
func clip(line []byte, maxLine int) []byte {
	if len(line) > maxLine {
		line = line[:maxLine]
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

// stripANSI removes ANSI CSI sequences (colours), which tracing and other
// loggers leave in files written from a terminal. The line is returned as is
// when it has none.
func stripANSI(l []byte) []byte {
	i := bytes.IndexByte(l, 0x1b)
	if i < 0 {
		return l
	}
	out := make([]byte, 0, len(l))
	for i >= 0 {
		out = append(out, l[:i]...)
		l = l[i+1:]
		if len(l) > 0 && l[0] == '[' {
			p := 1
			for p < len(l) && l[p] >= 0x20 && l[p] <= 0x3f {
				p++
			}
			if p < len(l) && l[p] >= 0x40 && l[p] <= 0x7e {
				p++
			}
			l = l[p:]
		}
		i = bytes.IndexByte(l, 0x1b)
	}
	return append(out, l...)
}
