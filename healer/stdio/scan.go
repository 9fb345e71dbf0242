package stdio

import (
	"bytes"
	"encoding/json"
)

// maxField bounds the bytes kept of a top-level id or method: an id or a
// method name longer than this is not one a host or server uses, and the
// message is relayed without being tracked.
const maxField = 512

// fields are what the supervisor reads of one JSON-RPC message: only its
// top-level id, method and whether it carries a result or an error. They
// are read by scan, a byte at a time, so a message of any size is read in
// bounded memory while it is relayed.
type fields struct {
	// Object: the line is a JSON object (a message); Batch: an array (a
	// batch, relayed as it is and not tracked). Neither: not JSON.
	Object, Batch bool
	// ID is the raw JSON of the id ("7", `"a"`), nil without one; idAt and
	// idEnd are its byte offsets in the line.
	ID          []byte
	idAt, idEnd int
	// Method is the method, "" without one.
	Method    string
	rawMethod []byte
	// Result, Error: the message is a response.
	Result, Error bool
	// long: an id or method longer than maxField; not tracked.
	long bool
}

// Request reports whether the message is a request (a method and an id).
func (f fields) Request() bool { return f.Method != "" && f.ID != nil }

// Response reports whether the message answers a request.
func (f fields) Response() bool { return f.Method == "" && f.ID != nil && (f.Result || f.Error) }

// Notification reports whether the message is a notification.
func (f fields) Notification() bool { return f.Method != "" && f.ID == nil }

// scanner reads the top-level fields of one line fed to it in pieces.
type scanner struct {
	f     fields
	off   int // bytes fed so far
	depth int
	begun bool
	inStr bool
	esc   bool
	// at depth 1: expecting a key (true) or a value (false)
	wantKey bool
	key     []byte
	keyLong bool
	// the value at depth 1 being kept, by the key it is under
	keep    string
	val     []byte
	valAt   int
	inValue bool
}

// feed scans the next piece of the line. Inside a string that is not
// kept (nearly every byte of a message) it skips to the string's next
// quote or backslash at once: scanning a byte at a time was a fifth of
// the supervisor's CPU on 1 KiB messages.
func (s *scanner) feed(p []byte) {
	for i := 0; i < len(p); i++ {
		if s.inStr && !s.esc && !s.keeping() {
			i += plainRun(p[i:])
			if i >= len(p) {
				break
			}
		}
		s.byte(p[i], s.off+i)
	}
	s.off += len(p)
}

// plainRun is how many bytes of p come before its first quote or
// backslash (all of p when it has neither).
func plainRun(p []byte) int {
	q := bytes.IndexByte(p, '"')
	if q < 0 {
		q = len(p)
	}
	if b := bytes.IndexByte(p[:q], '\\'); b >= 0 {
		return b
	}
	return q
}

// keeping reports whether the string being read is kept: a key at the
// top level, or the top-level id or method.
func (s *scanner) keeping() bool {
	return s.depth == 1 && (s.wantKey || (s.inValue && (s.keep == "id" || s.keep == "method")))
}

// done finishes the scan and returns what it read.
func (s *scanner) done() fields {
	if s.inValue {
		s.endValue(s.off)
	}
	if s.f.rawMethod != nil {
		var m string
		if json.Unmarshal(s.f.rawMethod, &m) == nil {
			s.f.Method = m
		}
		s.f.rawMethod = nil
	}
	return s.f
}

func (s *scanner) byte(c byte, at int) {
	if !s.begun {
		s.start(c)
		return
	}
	if s.depth == 0 {
		return
	}
	if s.inStr {
		s.str(c)
		return
	}
	switch c {
	case '"':
		s.inStr = true
		if s.depth == 1 && s.wantKey {
			s.key, s.keyLong = s.key[:0], false
			return
		}
		s.valueByte(c, at)
	case '{', '[':
		s.valueByte(c, at)
		s.depth++
	case '}', ']':
		s.depth--
		if s.depth == 0 && s.inValue {
			s.endValue(at)
		}
		if s.depth >= 1 {
			s.valueByte(c, at)
		}
	case ':':
		if s.depth == 1 {
			s.wantKey = false
			s.beginValue()
			return
		}
		s.valueByte(c, at)
	case ',':
		if s.depth == 1 {
			if s.inValue {
				s.endValue(at)
			}
			s.wantKey = true
			return
		}
		s.valueByte(c, at)
	case ' ', '\t', '\r', '\n':
	default:
		s.valueByte(c, at)
	}
}

func (s *scanner) start(c byte) {
	switch c {
	case ' ', '\t', '\r', '\n':
		return
	case '{':
		s.f.Object, s.depth, s.wantKey = true, 1, true
	case '[':
		s.f.Batch = true
	}
	s.begun = true
}

func (s *scanner) str(c byte) {
	switch {
	case s.esc:
		s.esc = false
	case c == '\\':
		s.esc = true
	case c == '"':
		s.inStr = false
		if s.depth == 1 && s.wantKey {
			return
		}
		s.appendVal(c)
		return
	}
	if s.depth == 1 && s.wantKey {
		if len(s.key) < maxField {
			s.key = append(s.key, c)
		} else {
			s.keyLong = true
		}
		return
	}
	s.appendVal(c)
}

// beginValue starts the value of the key just read.
func (s *scanner) beginValue() {
	key := string(s.key)
	if bytes.IndexByte(s.key, '\\') >= 0 {
		var k string
		if json.Unmarshal(append(append([]byte{'"'}, s.key...), '"'), &k) == nil {
			key = k
		}
	}
	if s.keyLong {
		key = ""
	}
	s.keep, s.val, s.valAt, s.inValue = key, s.val[:0], -1, true
	switch key {
	case "result":
		s.f.Result = true
	case "error":
		s.f.Error = true
	}
}

// valueByte is a byte of a value outside a string's inside.
func (s *scanner) valueByte(c byte, at int) {
	if s.inValue && s.depth == 1 && s.valAt < 0 {
		s.valAt = at
	}
	s.appendVal(c)
}

func (s *scanner) appendVal(c byte) {
	if !s.inValue || (s.keep != "id" && s.keep != "method") {
		return
	}
	if len(s.val) >= maxField {
		s.f.long = true
		return
	}
	s.val = append(s.val, c)
}

// endValue ends the value at depth 1 whose last byte came before at.
func (s *scanner) endValue(at int) {
	s.inValue = false
	if len(s.val) >= maxField {
		if s.keep == "id" {
			s.f.ID = nil
		}
		return
	}
	switch s.keep {
	case "id":
		if string(s.val) == "null" {
			s.f.ID = nil
			return
		}
		s.f.ID = append([]byte(nil), s.val...)
		s.f.idAt, s.f.idEnd = s.valAt, s.valAt+len(s.val)
	case "method":
		s.f.rawMethod = append([]byte(nil), s.val...)
	}
}

// scan reads the fields of a whole line.
func scan(line []byte) fields {
	var s scanner
	s.feed(line)
	return s.done()
}
