package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
)

// lateClient is the clientInfo.name of the hosts started while their
// server is down (late.go).
const lateClient = "late-host"

// lateWithin bounds a late host's whole run: its start and its calls wait
// in the proxy for a server that is down for at most a second and a half.
const lateWithin = 60 * time.Second

// startLate starts a host through server's proxy now, while the server is
// down since down (a kill); up reports when the server listens again.
func (w *world) startLate(server string, down time.Time) (up func(time.Time)) {
	upc := make(chan time.Time, 1)
	w.lateMu.Lock()
	w.lateN++
	n := w.lateN
	w.lateMu.Unlock()
	secret, err := proxy.LoadSecret(w.state)
	if err != nil {
		w.t.Error(err)
		return func(time.Time) {}
	}
	url := proxy.URLFor(w.proxyAddrs[server], secret)
	w.lateWG.Add(1)
	go func() {
		defer w.lateWG.Done()
		h := runLate(server, url, n)
		h.Down, h.Up = down, <-upc
		w.lateMu.Lock()
		defer w.lateMu.Unlock()
		w.late = append(w.late, h)
	}()
	return func(at time.Time) { upc <- at }
}

// runLate is one late host: the Go SDK's client, as hosts use it,
// connecting through the proxy at url, then LateCalls calls of the echo
// tool, one after the other, and its session closed.
func runLate(server, url string, n int) LateHost {
	h := LateHost{Server: server, Start: time.Now()}
	ctx, cancel := context.WithTimeout(context.Background(), lateWithin)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: lateClient, Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{}}, nil)
	h.Connected = time.Now()
	if err != nil {
		h.Failure = err.Error()
		return h
	}
	defer cs.Close()
	for i := 1; i <= LateCalls; i++ {
		rec := CallRecord{Server: server, Text: fmt.Sprintf("late %s %d %d", server, n, i), Start: time.Now()}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": rec.Text}})
		rec.End = time.Now()
		rec.Failure = lateFailure(res, err, rec.Text)
		h.Calls = append(h.Calls, rec)
	}
	return h
}

// lateFailure says what came back instead of the echo of text; "" when
// the echo came back (as text, or the Go SDK server's {"text": …}).
func lateFailure(res *mcp.CallToolResult, err error, text string) string {
	switch {
	case err != nil:
		return err.Error()
	case res.IsError || len(res.Content) == 0:
		b, _ := json.Marshal(res)
		return fmt.Sprintf("not the echo: %.200s", b)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return fmt.Sprintf("not the echo: content %T", res.Content[0])
	}
	want, _ := json.Marshal(map[string]string{"text": text})
	if got := strings.TrimSpace(tc.Text); got != text && got != string(want) {
		return fmt.Sprintf("not the echo: %.200s", got)
	}
	return ""
}

// lateHosts are the late hosts done so far.
func (w *world) lateHosts() []LateHost {
	w.lateMu.Lock()
	defer w.lateMu.Unlock()
	return append([]LateHost(nil), w.late...)
}
