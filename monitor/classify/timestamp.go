package classify

import (
	"bytes"
	"strconv"
	"time"
)

// ParseTime finds a line's own timestamp. Tried in order:
//
//   - a leading date-time, after optional blanks, "[" and ANSI colour codes:
//     RFC 3339 / ISO 8601 with "T" or a space, optional fraction ("." or ","),
//     optional zone ("Z", "+01:00", "+0100", " UTC"); or Go's log format
//     "2006/01/02 15:04:05[.000000]";
//   - a JSON or logfmt field "time", "timestamp", "@timestamp" or "ts" holding
//     such a date-time or Unix seconds / milliseconds / microseconds /
//     nanoseconds (told apart by size), possibly fractional.
//
// Times without a zone are read in loc (nil: time.Local).
func ParseTime(line []byte, loc *time.Location) (time.Time, bool) {
	if loc == nil {
		loc = time.Local
	}
	if t, _, ok := parseDateTime(line[skipLead(line):], loc); ok {
		return t, true
	}
	return fieldTime(line, loc)
}

// skipLead skips blanks, opening brackets and ANSI escape sequences.
func skipLead(l []byte) int {
	p := 0
	for p < len(l) && p < 64 {
		switch c := l[p]; {
		case c == ' ' || c == '\t' || c == '[' || c == '(':
			p++
		case c == 0x1b && p+1 < len(l) && l[p+1] == '[':
			p += 2
			for p < len(l) && l[p] >= 0x20 && l[p] <= 0x3f {
				p++ // parameters
			}
			if p < len(l) {
				p++ // final byte
			}
		default:
			return p
		}
	}
	return p
}

// parseDateTime parses a date-time at the start of b and returns it with the
// number of bytes it took.
func parseDateTime(b []byte, loc *time.Location) (time.Time, int, bool) {
	if len(b) < 19 || !isDigits(b[0:4]) || !isDigits(b[5:7]) || !isDigits(b[8:10]) ||
		!(b[4] == '-' && b[7] == '-' || b[4] == '/' && b[7] == '/') ||
		!(b[10] == 'T' || b[10] == 't' || b[10] == ' ') ||
		!isDigits(b[11:13]) || b[13] != ':' || !isDigits(b[14:16]) || b[16] != ':' || !isDigits(b[17:19]) {
		return time.Time{}, 0, false
	}
	year, month, day := atoi(b[0:4]), atoi(b[5:7]), atoi(b[8:10])
	hour, minute, sec := atoi(b[11:13]), atoi(b[14:16]), atoi(b[17:19])
	if month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, 0, false
	}
	p, nsec := 19, 0
	if p+1 < len(b) && (b[p] == '.' || b[p] == ',') && isDigit(b[p+1]) {
		p++
		scale := 100_000_000
		for ; p < len(b) && isDigit(b[p]); p++ {
			nsec += int(b[p]-'0') * scale
			scale /= 10
		}
	}
	zone, n, ok := parseZone(b[p:])
	if !ok {
		zone = loc
	}
	p += n
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, zone)
	if t.Day() != day { // 31 April and the like
		return time.Time{}, 0, false
	}
	return t, p, true
}

// parseZone reads "Z", "±hh:mm", "±hhmm", "±hh" or " UTC" (a space before a
// numeric zone is allowed too).
func parseZone(b []byte) (*time.Location, int, bool) {
	switch {
	case len(b) > 0 && (b[0] == 'Z' || b[0] == 'z'):
		return time.UTC, 1, true
	case len(b) >= 4 && string(b[:4]) == " UTC":
		return time.UTC, 4, true
	}
	p := 0
	if len(b) > 1 && b[0] == ' ' && (b[1] == '+' || b[1] == '-') {
		p = 1
	}
	if p+3 > len(b) || (b[p] != '+' && b[p] != '-') || !isDigits(b[p+1:p+3]) {
		return nil, 0, false
	}
	sign, hh, mm := b[p], atoi(b[p+1:p+3]), 0
	n := p + 3
	switch {
	case n+3 <= len(b) && b[n] == ':' && isDigits(b[n+1:n+3]):
		mm, n = atoi(b[n+1:n+3]), n+3
	case n+2 <= len(b) && isDigits(b[n:n+2]):
		mm, n = atoi(b[n:n+2]), n+2
	}
	if n < len(b) && isDigit(b[n]) || hh > 23 || mm > 59 {
		return nil, 0, false
	}
	off := (hh*60 + mm) * 60
	if sign == '-' {
		off = -off
	}
	if off == 0 {
		return time.UTC, n, true
	}
	return time.FixedZone("", off), n, true
}

// fieldTime looks for a time field: "time":..., time=..., and the like.
func fieldTime(l []byte, loc *time.Location) (time.Time, bool) {
	for _, key := range []string{"time", "timestamp", "@timestamp", "ts"} {
		for i := 0; ; {
			j := bytes.Index(l[i:], []byte(key))
			if j < 0 {
				break
			}
			s, e := i+j, i+j+len(key)
			i = e
			v, ok := fieldValue(l, s, e)
			if !ok {
				continue
			}
			if t, ok := timeValue(v, loc); ok {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// fieldValue returns the value of a key found at l[s:e]: `"key": value` or
// `key=value` with key standing alone. A quoted value comes without quotes.
func fieldValue(l []byte, s, e int) ([]byte, bool) {
	quoted := s > 0 && l[s-1] == '"' && e < len(l) && l[e] == '"'
	bare := (s == 0 || l[s-1] == ' ' || l[s-1] == '\t' || l[s-1] == '{' || l[s-1] == ',') && e < len(l)
	var p int
	switch {
	case quoted:
		p = skipBlank(l, e+1)
		if p >= len(l) || l[p] != ':' {
			return nil, false
		}
		p = skipBlank(l, p+1)
	case bare && (l[e] == '=' || l[e] == ':'):
		p = skipBlank(l, e+1)
	default:
		return nil, false
	}
	if p < len(l) && l[p] == '"' {
		q := bytes.IndexByte(l[p+1:], '"')
		if q < 0 {
			return nil, false
		}
		return l[p+1 : p+1+q], true
	}
	q := p
	for q < len(l) && l[q] != ' ' && l[q] != ',' && l[q] != '}' && l[q] != '\t' {
		q++
	}
	return l[p:q], q > p
}

// timeValue reads a date-time or a Unix time in seconds, ms, µs or ns
// (told apart by size), possibly with a fraction. Unix times before 2000 or
// after 2200 are taken for some other number.
func timeValue(v []byte, loc *time.Location) (time.Time, bool) {
	if t, _, ok := parseDateTime(v, loc); ok {
		return t, true
	}
	ip, frac, _ := bytes.Cut(v, []byte("."))
	if len(ip) == 0 || len(ip) > 19 || !isDigits(ip) || len(frac) > 0 && !isDigits(frac) {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(string(ip), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	unit := int64(time.Second) // nanoseconds per unit
	switch {
	case n >= 1e17:
		unit = 1
	case n >= 1e14:
		unit = int64(time.Microsecond)
	case n >= 1e11:
		unit = int64(time.Millisecond)
	}
	perSec := int64(time.Second) / unit
	sec, nsec := n/perSec, n%perSec*unit
	scale := unit / 10
	for i := 0; i < len(frac) && scale > 0; i++ {
		nsec += int64(frac[i]-'0') * scale
		scale /= 10
	}
	const y2000, y2200 = 946684800, 7258118400
	if sec < y2000 || sec >= y2200 {
		return time.Time{}, false
	}
	return time.Unix(sec, nsec).In(loc), true
}

func atoi(b []byte) int {
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	return n
}
