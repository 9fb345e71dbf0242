package mcphttp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"strings"
)

// capReader fails with ErrBodyTooLarge once more than max bytes were read.
type capReader struct {
	r   io.Reader
	max int64
	n   int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n > c.max {
		return 0, ErrBodyTooLarge
	}
	// Ask for at most one byte past the cap: enough to tell "exactly max"
	// from "too big" without reading more of a hostile stream.
	if room := c.max - c.n + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.max {
		return n - 1, ErrBodyTooLarge // the byte past the cap is not handed on
	}
	return n, err
}

func isSSE(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}

// readAnswer reads a POST answer: an SSE stream up to the event carrying id,
// or a whole (capped) body that may hold JSON-RPC. raw is what was read.
func readAnswer(body io.Reader, contentType, id string, max int64) (rpc *RPCMessage, raw []byte, err error) {
	var buf bytes.Buffer
	r := io.TeeReader(&capReader{r: body, max: max}, &buf)
	if isSSE(contentType) {
		rpc, err = scanSSE(r, id)
		return rpc, buf.Bytes(), err
	}
	if _, err = io.Copy(io.Discard, r); err != nil {
		return nil, buf.Bytes(), err
	}
	if msgs, ok := decodeMessages(buf.Bytes()); ok {
		rpc = pick(msgs, id)
	}
	return rpc, buf.Bytes(), nil
}

// scanSSE parses server-sent events and returns the first JSON-RPC response
// with our id, without reading further: the rest of the stream is none of
// our business. A stream that ends first yields nil and no error.
func scanSSE(r io.Reader, id string) (*RPCMessage, error) {
	br := bufio.NewReader(r)
	var data strings.Builder
	for {
		line, err := br.ReadString('\n')
		if len(line) > 0 || err == nil {
			if m := sseLine(strings.TrimRight(line, "\r\n"), &data, id); m != nil {
				return m, nil
			}
		}
		if errors.Is(err, io.EOF) {
			// A final event without its blank line still counts.
			return sseLine("", &data, id), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// sseLine feeds one line to the event being built; on the blank line that
// ends an event it decodes the event's data.
func sseLine(line string, data *strings.Builder, id string) *RPCMessage {
	if line == "" {
		defer data.Reset()
		// Only an event that mentions our id can answer us: skip decoding
		// the host's notifications.
		if !strings.Contains(data.String(), id) {
			return nil
		}
		if msgs, ok := decodeMessages([]byte(data.String())); ok {
			for i := range msgs {
				if msgs[i].IsResponse() && msgs[i].hasID(id) {
					return &msgs[i]
				}
			}
		}
		return nil
	}
	field, value, _ := strings.Cut(line, ":")
	if field == "data" {
		if data.Len() > 0 {
			data.WriteByte('\n')
		}
		data.WriteString(strings.TrimPrefix(value, " "))
	}
	return nil
}
