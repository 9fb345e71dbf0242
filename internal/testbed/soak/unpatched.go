package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// callThrough is an unpatched client's tool call: a text no other call
// uses, the session it has always had, and a record of what came back.
func (k *sessionKeeper) callThrough(ctx context.Context) {
	k.n++
	rec := CallRecord{Server: k.srv.Name, Text: fmt.Sprintf("%s %s %d", k.cfg.Name, k.srv.Name, k.n), Start: time.Now()}
	resp, err := k.c.Do(k.traceConn(ctx, &rec), mcphttp.Request{Method: "tools/call", SessionID: k.id, ProtocolVersion: legacyVersion,
		Params: map[string]any{"name": "echo", "arguments": map[string]any{"text": rec.Text}}})
	rec.End = time.Now()
	if ctx.Err() != nil {
		return // the soak is over: not a call the proxy answered
	}
	rec.Failure = echoFailure(resp, err, rec.Text)
	k.calls.write(rec)
}

// traceConn records in rec when the connection the call goes out on was
// opened: one a killed daemon had accepted dies with it, and a call sent
// on it before the client saw that is one the kill cut, however late.
func (k *sessionKeeper) traceConn(ctx context.Context, rec *CallRecord) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		addr := info.Conn.LocalAddr().String()
		k.connMu.Lock()
		defer k.connMu.Unlock()
		if k.conns == nil {
			k.conns = map[string]time.Time{}
		}
		since, known := k.conns[addr]
		if !info.Reused || !known {
			since = time.Now() // opened now, or reused from before the soak traced it: as late as can be
			k.conns[addr] = since
		}
		rec.ConnSince = since
	}})
}

// echoFailure says what came back instead of the echo of text; "" when
// the echo came back.
func echoFailure(resp mcphttp.Response, err error, text string) string {
	switch {
	case err != nil:
		return err.Error()
	case resp.Status != http.StatusOK:
		return fmt.Sprintf("HTTP %d: %.200s", resp.Status, resp.Body)
	case resp.RPC == nil:
		return fmt.Sprintf("no JSON-RPC answer: %.200s", resp.Body)
	case resp.RPC.Error != nil:
		return fmt.Sprintf("JSON-RPC error %d: %s", resp.RPC.Error.Code, resp.RPC.Error.Message)
	}
	var result struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(resp.RPC.Result, &result); err != nil || result.IsError || len(result.Content) == 0 || result.Content[0].Text != text {
		return fmt.Sprintf("not the echo: %.200s", resp.RPC.Result)
	}
	return ""
}

// callLog writes CallRecords as JSON lines, one Write each.
type callLog struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *callLog) write(rec CallRecord) {
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(append(b, '\n'))
}

// judgedCalls are the calls that ended by the soak's end: later ones met
// the final stop on purpose.
func judgedCalls(calls []CallRecord, end time.Time) []CallRecord {
	var out []CallRecord
	for _, c := range calls {
		if !c.End.After(end) {
			out = append(out, c)
		}
	}
	return out
}

// lineWriter hands each whole line written to it to line, without its
// newline; a last line with none is dropped (the writer was killed).
type lineWriter struct {
	mu   sync.Mutex
	buf  []byte
	line func([]byte)
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		l.line(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
}
