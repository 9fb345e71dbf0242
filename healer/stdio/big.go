package stdio

import (
	"errors"
	"fmt"
)

// relayBigToServer relays a host's message too long to hold whole to the
// server as it comes. Its id is known only at its end: it is recorded
// before the newline that lets the server read it.
func (s *Supervisor) relayBigToServer(lr *lineReader, head []byte) {
	var sc scanner
	sc.feed(head)
	c, err := s.await()
	if err != nil {
		_ = lr.rest(func(p []byte) error { sc.feed(p); return nil })
		if f := sc.done(); f.Request() {
			s.fail(f.ID, err)
		}
		return
	}
	c.inMu.Lock()
	defer c.inMu.Unlock()
	werr := c.writeLocked(head)
	_ = lr.rest(func(p []byte) error {
		sc.feed(p)
		if werr == nil {
			werr = c.writeLocked(p)
		}
		return nil
	})
	f := sc.done()
	if werr == nil {
		s.sending(c, f, nil)
		if werr = c.writeLocked([]byte{'\n'}); werr == nil {
			return
		}
		s.unsend(f)
	}
	if errors.Is(werr, errNotReading) {
		s.notReading(c, f)
		return
	}
	if f.Request() {
		s.fail(f.ID, &callError{reason: "exited", words: fmt.Sprintf(
			"the MCP server %q exited while this request was being sent to it: it did not run", s.name())})
	}
}
