package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// Protocol is the MCP-Protocol-Version the sessions negotiate.
const Protocol = "2025-06-18"

const (
	initBody  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + Protocol + `","capabilities":{},"clientInfo":{"name":"loadgen","version":"1"}}}`
	ackBody   = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	echoBody  = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ping-pong"}}}`
	echoReply = "ping-pong"
)

// Client is an HTTP client that keeps up to conns idle connections per
// server: each of that many concurrent sessions reuses its own.
func Client(conns int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost, t.MaxIdleConns = conns, 0
	return &http.Client{Transport: t}
}

// Result is one load run.
type Result struct {
	Calls     int
	Elapsed   time.Duration
	Latencies []time.Duration // sorted
}

// PerSecond is calls per second over the run.
func (r Result) PerSecond() float64 { return float64(r.Calls) / r.Elapsed.Seconds() }

// Quantile is the latency at q (0..1).
func (r Result) Quantile(q float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	return r.Latencies[min(len(r.Latencies)-1, int(q*float64(len(r.Latencies))))]
}

// Add merges o into r (two windows of the same setting).
func (r Result) Add(o Result) Result {
	out := Result{Calls: r.Calls + o.Calls, Elapsed: r.Elapsed + o.Elapsed, Latencies: append(slices.Clone(r.Latencies), o.Latencies...)}
	slices.Sort(out.Latencies)
	return out
}

// Sessions are open sessions on one URL, ready to call.
type Sessions struct {
	url string
	hc  *http.Client
	ids []string
}

// Open opens n sessions on url (initialize, notifications/initialized),
// at most conc at a time.
func Open(ctx context.Context, hc *http.Client, url string, n, conc int) (*Sessions, error) {
	s := &Sessions{url: url, hc: hc, ids: make([]string, n)}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(conc, 1))
	for i := range n {
		g.Go(func() error {
			id, err := s.open(gctx)
			s.ids[i] = id
			return err
		})
	}
	return s, g.Wait()
}

func (s *Sessions) open(ctx context.Context) (string, error) {
	resp, err := s.post(ctx, "", initBody)
	if err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		return "", fmt.Errorf("initialize on %s: no session id (status %d)", s.url, resp.StatusCode)
	}
	if _, err := s.post(ctx, id, ackBody); err != nil {
		return "", fmt.Errorf("notifications/initialized: %w", err)
	}
	return id, nil
}

// post sends body and reads the whole answer; a non-2xx answer is an error.
func (s *Sessions) post(ctx context.Context, id, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", Protocol)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s answered %d: %.200s", s.url, resp.StatusCode, data)
	}
	if strings.Contains(body, `"tools/call"`) && !bytes.Contains(data, []byte(echoReply)) {
		return nil, fmt.Errorf("%s: the echo answer lacks its text: %.200s", s.url, data)
	}
	return resp, nil
}

// Run has every session call echo in a loop for d; a failed call ends the
// run with its error. The calls under way when d is up are not cut (that
// would close up to one connection per session at the end of every window,
// and each path would pay the reconnects in the next): they finish
// uncounted, and Run returns once they have. Calls/s is the calls answered
// within d over d.
func (s *Sessions) Run(ctx context.Context, d time.Duration) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, d+drainFor)
	defer cancel()
	lat := make([][]time.Duration, len(s.ids))
	var wg sync.WaitGroup
	errs := make([]error, len(s.ids))
	start := time.Now()
	end := start.Add(d)
	for i, id := range s.ids {
		wg.Go(func() { lat[i], errs[i] = s.loop(ctx, id, end) })
	}
	wg.Wait()
	r := Result{Elapsed: d, Latencies: slices.Concat(lat...)}
	r.Calls = len(r.Latencies)
	slices.Sort(r.Latencies)
	return r, errors.Join(errs...)
}

// drainFor bounds the wait for the calls under way at the end of a run.
const drainFor = 30 * time.Second

// loop calls until end; a call answered after end is not counted.
func (s *Sessions) loop(ctx context.Context, id string, end time.Time) ([]time.Duration, error) {
	var out []time.Duration
	for {
		t := time.Now()
		if !t.Before(end) {
			return out, nil
		}
		if _, err := s.post(ctx, id, echoBody); err != nil {
			return out, err
		}
		if done := time.Now(); done.Before(end) {
			out = append(out, done.Sub(t))
		}
	}
}

// Close ends the sessions (DELETE) and drops the client's idle connections.
func (s *Sessions) Close(ctx context.Context) {
	for _, id := range s.ids {
		req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.url, nil)
		if err != nil || id == "" {
			continue
		}
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", Protocol)
		if resp, err := s.hc.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	s.hc.CloseIdleConnections()
}
