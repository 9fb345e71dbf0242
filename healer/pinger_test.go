package healer

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// A ping its sender cancels while the server has yet to answer reports
// nothing: the cancel is the watchdog's, not the server's answer (CI saw
// one journaled as keep_warm_failed and the server set down).
func TestPingCancelledByItsSenderReportsNothing(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // read whole: net/http then notices the client going away
		arrived <- struct{}{}
		<-r.Context().Done() // a server slow to answer: it answers nothing before the ping ends
	}))
	defer srv.Close()
	c, err := mcphttp.New(mcphttp.Options{URL: srv.URL + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	var got []health.Observation
	p := NewPinger(map[string]*mcphttp.Client{"mem": c}, func(o health.Observation) { got = append(got, o) })
	ctx, cancel := context.WithCancel(context.Background())
	if !p.KeepWarm(ctx, health.WarmTarget{Server: "mem", SessionID: "s-1"}) {
		t.Fatal("the ping was not sent")
	}
	<-arrived
	cancel()
	p.Wait() // the report, if any, is made before Wait returns
	if len(got) != 0 {
		t.Fatalf("a ping its sender cancelled reported %+v", got)
	}
}
