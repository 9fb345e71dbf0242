package probe

import (
	"context"
	"crypto/rand"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// session runs the checks that need the probe's own session, then ends it,
// even when ctx is done by then.
func (p *prober) session(ctx context.Context, sid string) error {
	pv := p.r.ProtocolVersion
	p.r.SessionLeft = true // until the probe has seen it gone
	checks := []func(context.Context, string, string){p.initialized, p.ping, p.getStream, p.unknownSession}
	for _, check := range checks {
		if ctx.Err() != nil {
			break
		}
		check(ctx, sid, pv)
	}
	p.end(context.WithoutCancel(ctx), sid, pv)
	return ctx.Err()
}

func (p *prober) initialized(ctx context.Context, sid, pv string) {
	resp, cl, err := p.send(ctx, StepInitialized, mcphttp.Request{Method: "notifications/initialized", SessionID: sid, ProtocolVersion: pv})
	if err != nil || resp.Status/100 != 2 {
		p.note("notifications/initialized: %s", cl.Reason)
	}
}

func (p *prober) ping(ctx context.Context, sid, pv string) {
	_, cl, _ := p.send(ctx, StepPing, mcphttp.Request{Method: "ping", SessionID: sid, ProtocolVersion: pv})
	if cl.Verdict != mcphttp.Alive {
		p.note("ping on the new session: %s: %s", cl.Verdict, cl.Reason)
	}
}

// getStream opens the standalone GET stream and closes it at once.
func (p *prober) getStream(ctx context.Context, sid, pv string) {
	resp, err := p.c.OpenStream(ctx, sid, pv)
	p.r.Timings[StepGET] = resp.Took
	switch {
	case err != nil:
		p.r.GETStream = "failed: " + mcphttp.Judge(resp, err).Reason
	case resp.Status == http.StatusOK && isSSE(resp.Header):
		p.r.GETStream = "200: stream offered"
	case resp.Status == http.StatusMethodNotAllowed:
		p.r.GETStream = "405: no stream (spec)"
	case resp.Status == http.StatusNotFound:
		p.confirmGET404(ctx, sid, pv)
	default:
		p.r.GETStream = fmt.Sprintf("%d: %s", resp.Status, clip(resp))
	}
}

// confirmGET404 pings (a POST): only that tells a lost session from the GET
// quirk.
func (p *prober) confirmGET404(ctx context.Context, sid, pv string) {
	_, cl, _ := p.send(ctx, StepPingAfterGET, mcphttp.Request{Method: "ping", SessionID: sid, ProtocolVersion: pv})
	switch cl.Verdict {
	case mcphttp.Alive:
		p.r.GET404Quirk = true
		p.r.GETStream = "404 on a live session (quirk)"
		p.note("GET on a live session answers 404 (405 is the spec's answer): a client that treats every 404 as a lost session reconnects in a loop; only a 404 on a POST means the session is gone")
	case mcphttp.Lost:
		p.r.GETStream = "404: the session was gone"
		p.note("the probe's session was lost between its ping and its GET")
	default:
		p.r.GETStream = "404 (unconfirmed: " + cl.Reason + ")"
	}
}

// unknownSession pings with a made-up session id.
func (p *prober) unknownSession(ctx context.Context, _, pv string) {
	resp, cl, err := p.send(ctx, StepPingUnknown, mcphttp.Request{Method: "ping", SessionID: "watchdog-probe-unknown-" + rand.Text(), ProtocolVersion: pv})
	switch {
	case err != nil:
		p.r.UnknownSession = "failed: " + cl.Reason
	case resp.Status == http.StatusNotFound:
		p.r.LostAnswer = host.AnswerOf(resp.Status, resp.RPC != nil && resp.RPC.Error != nil)
		p.r.UnknownSession = "404 (spec), plain text"
		if p.r.LostAnswer == host.NotFoundRPC {
			p.r.UnknownSession = "404 (spec), JSON-RPC error"
		}
	case resp.Status == http.StatusBadRequest && cl.Verdict == mcphttp.Lost:
		p.r.LostAnswer = host.BadRequest
		p.r.UnknownSession = "400 quirk: " + clip(resp)
		p.note("an unknown session gets 400 instead of the spec's 404 (as in the TypeScript SDK examples); the watchdog still reads it as a lost session")
	case cl.Verdict == mcphttp.Alive:
		p.r.UnknownSession = fmt.Sprintf("%d: a made-up session id was accepted", resp.Status)
		p.note("the server answered a ping on a session it never issued")
	default:
		p.r.UnknownSession = fmt.Sprintf("%d: %s", resp.Status, clip(resp))
	}
}

// end sends DELETE and checks with a ping that the session is gone.
func (p *prober) end(ctx context.Context, sid, pv string) {
	resp, err := p.c.DeleteVersion(ctx, sid, pv)
	p.r.Timings[StepDelete] = resp.Took
	switch {
	case err != nil:
		p.r.Delete = "failed: " + mcphttp.Judge(resp, err).Reason
		p.note("DELETE failed: the probe's session ends at the server's idle timeout")
		return
	case resp.Status/100 == 2:
		p.r.Delete = "supported"
	case resp.Status == http.StatusMethodNotAllowed:
		p.r.Delete = "405"
		p.note("the server does not allow DELETE: the probe's session ends at the server's idle timeout")
		return
	default:
		p.r.Delete = fmt.Sprintf("%d: %s", resp.Status, clip(resp))
		p.note("DELETE was not accepted: the probe's session ends at the server's idle timeout")
		return
	}
	_, cl, _ := p.send(ctx, StepPingAfterDelete, mcphttp.Request{Method: "ping", SessionID: sid, ProtocolVersion: pv})
	switch cl.Verdict {
	case mcphttp.Lost:
		p.r.SessionLeft = false
	case mcphttp.Alive:
		p.note("DELETE answered %d but the session still answers ping: it ends at the server's idle timeout", resp.Status)
	default:
		p.note("could not verify that DELETE ended the session: %s", cl.Reason)
	}
}

func isSSE(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && mt == "text/event-stream"
}

// clip keeps the first line of a body, at most 160 bytes of valid UTF-8,
// with the session id masked and the configured header values hidden
// wherever the server echoed them.
func clip(resp mcphttp.Response) string {
	s := strings.TrimSpace(resp.Redact(string(resp.Body)))
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 160 {
		s = s[:160]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	if s == "" {
		return "empty body"
	}
	return s
}
