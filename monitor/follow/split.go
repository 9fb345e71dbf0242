package follow

import "bytes"

// skipMode says why the splitter is discarding bytes up to the next newline.
type skipMode uint8

const (
	skipNone skipMode = iota
	// skipToNewline: reading began inside a line (history tail, start at
	// end); its rest is not a line of its own.
	skipToNewline
	// skipLong: the current line is longer than the limit. Its bytes are
	// dropped as they come, so an endless line costs no memory.
	skipLong
)

// splitter cuts a byte stream into lines. Only lines whose newline has
// arrived are emitted; the unterminated tail waits in partial.
type splitter struct {
	max     int    // longest line (without newline) that is emitted
	partial []byte // start of a line whose newline has not arrived
	skip    skipMode
	lineOff int64 // file offset where the current line begins
}

// partialKeep bounds the buffer kept between lines, so that one long line
// does not pin its memory for the rest of the file's life.
const partialKeep = 64 << 10

func (s *splitter) reset(off int64, mode skipMode) {
	s.partial = s.partial[:0]
	s.skip = mode
	s.lineOff = off
}

// feed splits b, which starts at file offset off. line gets each complete
// line's text (valid only during the call) and the offset just after its
// newline; returning false stops feed, which then returns false. long is
// called once for each line found to exceed max, with the line's offset.
func (s *splitter) feed(b []byte, off int64, line func(text []byte, end int64) bool, long func(start int64)) bool {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			s.hold(b, long)
			return true
		}
		end := off + int64(i) + 1
		ok := s.finish(b[:i], end, line, long)
		b, off = b[i+1:], end
		if !ok {
			return false
		}
	}
	return true
}

// hold keeps an unterminated piece, or drops it once the line is too long.
func (s *splitter) hold(b []byte, long func(start int64)) {
	if s.skip != skipNone {
		return
	}
	if len(s.partial)+len(b) > s.max {
		s.skip = skipLong
		s.partial = s.partial[:0]
		long(s.lineOff)
		return
	}
	s.partial = append(s.partial, b...)
}

// finish completes the current line with seg, whose newline ends at end.
func (s *splitter) finish(seg []byte, end int64, line func([]byte, int64) bool, long func(int64)) bool {
	start, mode := s.lineOff, s.skip
	s.lineOff, s.skip = end, skipNone
	if mode != skipNone {
		return true
	}
	if len(s.partial)+len(seg) > s.max {
		s.partial = s.partial[:0]
		long(start)
		return true
	}
	text := seg
	if len(s.partial) > 0 {
		text = append(s.partial, seg...)
	}
	ok := line(text, end)
	s.partial = s.partial[:0]
	if cap(s.partial) > partialKeep {
		s.partial = nil
	}
	return ok
}
