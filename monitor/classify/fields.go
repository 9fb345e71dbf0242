package classify

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// maxIdleSeconds bounds seconds= so the Duration cannot overflow (~68 years).
const maxIdleSeconds = 1<<31 - 1

// idleFields reads seconds= and store_path= of the idle-timeout line. Either
// may be absent. Accepted shapes: logfmt (seconds=43200, store_path=/p or
// store_path="/p q"), JSON ("seconds":43200, "store_path":"/p"), and values
// quoted or not.
func idleFields(l []byte) (time.Duration, string) {
	var d time.Duration
	if v, _, ok := keyValue(l, "seconds"); ok {
		v = bytes.TrimSuffix(v, []byte("s"))
		if n, err := strconv.ParseFloat(string(v), 64); err == nil && n > 0 && n <= maxIdleSeconds {
			d = time.Duration(n * float64(time.Second))
		}
	}
	var path string
	if v, quoted, ok := keyValue(l, "store_path"); ok {
		path = string(v)
		if quoted {
			path = unquote(v)
		}
	}
	return d, path
}

// keyValue finds `key=value`, `key: value` or `"key":value` with key standing
// alone (not "idle_seconds"). A quoted value is returned raw (escapes kept)
// with quoted set. An unquoted value runs to the next ` other_key=` or the
// end of the line, so an unquoted path with spaces survives.
func keyValue(l []byte, key string) (v []byte, quoted, ok bool) {
	for i := 0; ; {
		j := bytes.Index(l[i:], []byte(key))
		if j < 0 {
			return nil, false, false
		}
		s, e := i+j, i+j+len(key)
		i = e
		if s > 0 && (isIDByte(l[s-1]) || l[s-1] == '.') {
			continue
		}
		p := e
		if p < len(l) && l[p] == '"' {
			p++
		}
		p = skipBlank(l, p)
		if p >= len(l) || (l[p] != '=' && l[p] != ':') {
			continue
		}
		p = skipBlank(l, p+1)
		if p < len(l) && l[p] == '"' {
			q := closingQuote(l, p+1)
			if q < 0 {
				continue
			}
			return l[p+1 : q], true, true
		}
		q := unquotedEnd(l, p)
		if q == p {
			continue
		}
		return l[p:q], false, true
	}
}

// closingQuote finds the '"' ending a string that starts at p, skipping
// backslash escapes; -1 if none.
func closingQuote(l []byte, p int) int {
	for ; p < len(l); p++ {
		switch l[p] {
		case '\\':
			p++
		case '"':
			return p
		}
	}
	return -1
}

// unquotedEnd: the value ends at ',' '}' or at a blank followed by
// another `key=`, or at the end of the line (trailing blanks dropped).
func unquotedEnd(l []byte, p int) int {
	q := p
	for q < len(l) {
		switch c := l[q]; {
		case c == ',' || c == '}':
			return q
		case c == ' ' || c == '\t':
			if r := skipBlank(l, q); r == len(l) || startsKey(l[r:]) {
				return q
			}
		}
		q++
	}
	return q
}

// startsKey: b begins with `ident=` (a logfmt field).
func startsKey(b []byte) bool {
	i := 0
	for i < len(b) && (isIDByte(b[i]) || b[i] == '.') {
		i++
	}
	return i > 0 && i < len(b) && b[i] == '='
}

// unquote decodes a JSON / Go style double-quoted string body; on failure
// the raw text is kept.
func unquote(raw []byte) string {
	var s string
	quoted := append(append([]byte{'"'}, raw...), '"')
	if json.Unmarshal(quoted, &s) == nil {
		return s
	}
	if s, err := strconv.Unquote(string(quoted)); err == nil {
		return s
	}
	return string(raw)
}
