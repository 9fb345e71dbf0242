package proxy

import "errors"

// chunkScan follows the framing of a chunked body (RFC 9112 7.1) as its
// bytes pass through, to find where the body ends without decoding it:
// the fast path relays a server's chunked answer (an SSE stream) to the
// host as it came, chunk sizes and all. Given a data function it also
// hands over the chunks' data, the body decoded.
//
// It is as strict as Go's own chunked reader where that one is (a CRLF
// after each chunk's data, at most 16 hex digits) and as lenient (a bare
// LF ends a size line; extensions are skipped); trailer fields are passed
// through.
type chunkScan struct {
	state   chunkState
	size    int64 // the chunk's size while reading it; its data left while in it
	digits  int
	lineLen int // bytes of the current size or trailer line
	trailer int // bytes of trailer fields so far
}

type chunkState uint8

const (
	chunkSize    chunkState = iota // hex digits
	chunkSizeEnd                   // spaces, an extension, up to the line's end
	chunkSizeLF                    // the LF of the size line
	chunkData
	chunkDataCR // the CRLF after the data
	chunkDataLF
	chunkTrailerStart // the start of a trailer line, or the final blank line
	chunkTrailer      // in a trailer line
	chunkEndLF        // the LF of the final blank line
	chunkDone
)

// Bounds of a chunked body's framing.
const (
	maxChunkLine    = 4 << 10  // one size line, extensions included
	maxChunkTrailer = 64 << 10 // all trailer fields
)

var errChunked = errors.New("malformed chunked encoding in the server's answer")

// done reports whether the body has ended.
func (c *chunkScan) done() bool { return c.state == chunkDone }

// dataLeft is how much of the current chunk's data is still to come, 0
// outside a chunk's data.
func (c *chunkScan) dataLeft() int64 {
	if c.state != chunkData {
		return 0
	}
	return c.size
}

// skipData notes n bytes of chunk data passed on without feed (spliced).
func (c *chunkScan) skipData(n int64) {
	c.size -= n
	if c.size == 0 {
		c.state = chunkDataCR
	}
}

// feed reads p, the body's next bytes. It returns how many belong to the
// body: all of p, unless the body ends within it. data, when not nil, gets
// each run of chunk data as it is read.
func (c *chunkScan) feed(p []byte, data func([]byte)) (int, error) {
	i := 0
	for i < len(p) && c.state != chunkDone {
		if c.state == chunkData {
			n := int(min(int64(len(p)-i), c.size))
			if data != nil {
				data(p[i : i+n])
			}
			i += n
			c.skipData(int64(n))
			continue
		}
		if err := c.step(p[i]); err != nil {
			return i, err
		}
		i++
	}
	return i, nil
}

// step reads one byte of framing.
func (c *chunkScan) step(b byte) error {
	switch c.state {
	case chunkSize, chunkSizeEnd:
		return c.sizeByte(b)
	case chunkSizeLF:
		if b != '\n' {
			return errChunked
		}
		c.endSizeLine()
	case chunkDataCR:
		if b != '\r' {
			return errChunked
		}
		c.state = chunkDataLF
	case chunkDataLF:
		if b != '\n' {
			return errChunked
		}
		*c = chunkScan{}
	case chunkTrailerStart, chunkTrailer:
		return c.trailerByte(b)
	case chunkEndLF:
		if b != '\n' {
			return errChunked
		}
		c.state = chunkDone
	}
	return nil
}

// sizeByte reads one byte of a size line.
func (c *chunkScan) sizeByte(b byte) error {
	c.lineLen++
	if c.lineLen > maxChunkLine {
		return errChunked
	}
	if v, ok := hexValue(b); ok && c.state == chunkSize {
		if c.digits == 16 || c.size >= 1<<59 {
			return errChunked
		}
		c.size, c.digits = c.size<<4|int64(v), c.digits+1
		return nil
	}
	if c.digits == 0 {
		return errChunked
	}
	switch b {
	case '\r':
		c.state = chunkSizeLF
	case '\n':
		c.endSizeLine()
	default:
		c.state = chunkSizeEnd // whitespace, then an extension: skipped
	}
	return nil
}

func (c *chunkScan) endSizeLine() {
	c.lineLen = 0
	if c.size == 0 {
		c.state = chunkTrailerStart
		return
	}
	c.state = chunkData
}

// trailerByte reads one byte of the trailer section.
func (c *chunkScan) trailerByte(b byte) error {
	c.trailer++
	if c.trailer > maxChunkTrailer {
		return errChunked
	}
	switch {
	case c.state == chunkTrailerStart && b == '\r':
		c.state = chunkEndLF
	case c.state == chunkTrailerStart && b == '\n':
		c.state = chunkDone
	case b == '\n':
		c.state = chunkTrailerStart
	default:
		c.state = chunkTrailer
	}
	return nil
}

func hexValue(b byte) (byte, bool) {
	switch {
	case '0' <= b && b <= '9':
		return b - '0', true
	case 'a' <= b && b <= 'f':
		return b - 'a' + 10, true
	case 'A' <= b && b <= 'F':
		return b - 'A' + 10, true
	}
	return 0, false
}
