package stdio

import (
	"bufio"
	"errors"
	"io"
	"sync"
)

// readBuf is the reader's buffer: a line up to this long is read with one
// copy, a longer one in pieces of this size.
const readBuf = 64 << 10

// lineReader reads newline-ended messages. A line up to whole bytes comes
// back whole; a longer one comes back as its first bytes (big), and its
// rest is streamed by rest, so no line is ever held whole past whole.
type lineReader struct {
	br    *bufio.Reader
	buf   []byte
	whole int
}

func newLineReader(r io.Reader, whole int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, readBuf), whole: whole}
}

// next is the next line, its newline cut off. big: only its first bytes,
// the rest to be read with rest before the next call. The slice is the
// reader's until the next call.
func (r *lineReader) next() (line []byte, big bool, err error) {
	if cap(r.buf) > 4*readBuf {
		r.buf = nil // a big line's buffer is not kept for the small ones after it
	}
	r.buf = r.buf[:0]
	for {
		frag, err := r.br.ReadSlice('\n')
		r.buf = append(r.buf, frag...)
		switch {
		case err == nil:
			return r.buf[:len(r.buf)-1], false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(r.buf) >= r.whole {
				return r.buf, true, nil
			}
		case errors.Is(err, io.EOF) && len(r.buf) > 0:
			return r.buf, false, nil
		default:
			return nil, false, err
		}
	}
}

// rest streams the rest of a big line to fn, its newline cut off. After fn
// fails the rest is still read (and dropped), so the next line starts
// where it should; rest returns fn's first error, or the reader's.
func (r *lineReader) rest(fn func([]byte) error) error {
	var ferr error
	for {
		frag, err := r.br.ReadSlice('\n')
		last := err == nil
		if last {
			frag = frag[:len(frag)-1]
		}
		if len(frag) > 0 && ferr == nil {
			ferr = fn(frag)
		}
		switch {
		case last, errors.Is(err, io.EOF):
			return ferr
		case errors.Is(err, bufio.ErrBufferFull):
		default:
			return err
		}
	}
}

// out is one side's output, shared by the goroutines that write to it: a
// message is written whole, never interleaved with another.
type out struct {
	mu sync.Mutex
	w  io.Writer
	nl []byte
}

// line writes p and a newline. p's backing array may be grown.
func (o *out) line(p []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lineLocked(p)
}

func (o *out) lineLocked(p []byte) error {
	if len(p) < cap(p) {
		_, err := o.w.Write(append(p, '\n'))
		return err
	}
	o.nl = append(append(o.nl[:0], p...), '\n')
	_, err := o.w.Write(o.nl)
	if cap(o.nl) > 4*readBuf {
		o.nl = nil
	}
	return err
}
