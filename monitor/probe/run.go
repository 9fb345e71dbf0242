package probe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

// ClientName is the clientInfo name of the probe's requests, so a server's
// logs tell the probe's session from the host's.
const ClientName = "mcp-watchdog-probe"

// LegacyVersion is the protocolVersion the probe's initialize asks for: the
// most widely implemented legacy version; servers negotiate from there.
const LegacyVersion = "2025-06-18"

// Steps, in the order they run; the keys of Report.Timings.
const (
	StepDiscover        = "discover"
	StepInitialize      = "initialize"
	StepInitialized     = "initialized"
	StepPing            = "ping"
	StepGET             = "get"
	StepPingAfterGET    = "ping_after_get"
	StepPingUnknown     = "ping_unknown"
	StepDelete          = "delete"
	StepPingAfterDelete = "ping_after_delete"
	StepCleanup         = "cleanup"
)

func stepRank(s string) int {
	for i, k := range [...]string{StepDiscover, StepInitialize, StepInitialized, StepPing, StepGET, StepPingAfterGET, StepPingUnknown, StepDelete, StepPingAfterDelete, StepCleanup} {
		if k == s {
			return i
		}
	}
	return 100
}

// Errors Run returns when it could not classify the endpoint; the Report
// still holds what was learned.
var (
	ErrUnreachable = errors.New("the endpoint could not be reached")
	ErrRedirect    = errors.New("the endpoint redirects")
	ErrAuth        = errors.New("the endpoint wants credentials")
	// ErrNoAnswer: nothing the endpoint sent was a JSON-RPC message (an
	// HTML page, invalid JSON, an empty body): it is not an MCP endpoint,
	// or not one the probe can talk to.
	ErrNoAnswer = errors.New("the endpoint gave no JSON-RPC answer")
)

type prober struct {
	c        *mcphttp.Client
	r        Report
	strays   []string // session ids issued outside initialize, ended at the end
	answered bool     // some answer held a JSON-RPC message
	last     string   // what the last request got, for ErrNoAnswer
}

// Run probes the endpoint behind c. The error is non-nil when the endpoint
// could not be classified (ErrUnreachable, ErrRedirect, ErrAuth, or the
// context's error); the Report is filled as far as the probe got.
func Run(ctx context.Context, c *mcphttp.Client) (Report, error) {
	p := &prober{c: c, r: Report{URL: mask.URL(c.URL()), Era: EraUnknown, Timings: map[string]time.Duration{}}}
	modern, err := p.discover(ctx)
	if err != nil {
		return p.finish(ctx, err)
	}
	sid, legacy, err := p.initialize(ctx)
	p.r.Era = era(modern, legacy)
	if p.r.Era == EraModernOnly {
		p.note("a host that speaks only the legacy protocol (most do) cannot use this server straight: route it through the watchdog's proxy, which bridges the eras (watchdog hosts adopt HOST)")
	}
	if err == nil && !p.answered {
		err = fmt.Errorf("%w: %s", ErrNoAnswer, p.last)
	}
	if err != nil {
		return p.finish(ctx, err)
	}
	if sid == "" {
		p.r.UnknownSession = "not applicable: no sessions"
		p.r.GETStream = "not applicable: no sessions"
		p.r.Delete = "not applicable: no sessions"
		return p.finish(ctx, nil)
	}
	p.r.Stateful = true
	err = p.session(ctx, sid)
	return p.finish(ctx, err)
}

func era(modern, legacy bool) string {
	switch {
	case modern && legacy:
		return EraBoth
	case modern:
		return EraModernOnly
	case legacy:
		return EraLegacy
	}
	return EraUnknown
}

// finish ends stray sessions even when ctx is done: the probe must not
// leave sessions behind because it was interrupted.
func (p *prober) finish(ctx context.Context, err error) (Report, error) {
	ctx = context.WithoutCancel(ctx) // each request is still bounded by the client's timeout
	for _, sid := range p.strays {
		p.endStray(ctx, sid)
	}
	if err == nil {
		err = ctx.Err()
	}
	return p.r, err
}

func (p *prober) note(format string, args ...any) {
	p.r.Notes = append(p.r.Notes, fmt.Sprintf(format, args...))
}

// send runs one timed request; a session id in the answer that the probe
// did not ask for is remembered so that it can be ended.
func (p *prober) send(ctx context.Context, step string, req mcphttp.Request) (mcphttp.Response, mcphttp.Judgement, error) {
	resp, err := p.c.Do(ctx, req)
	p.r.Timings[step] = resp.Took
	if err == nil {
		p.answered = p.answered || resp.RPC != nil
		p.last = step + ": " + describe(resp)
	}
	return resp, mcphttp.Judge(resp, err), err
}

// describe says what came back, for a person: status, content type and
// the first bytes of the body, with the exchange's secrets hidden
// (Response.Redact) and control characters escaped.
func describe(resp mcphttp.Response) string {
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		ct = "none"
	}
	body := "an empty body"
	if n := len(resp.Body); n > 0 {
		head := resp.Body[:min(n, describeBytes)]
		more := ""
		if len(head) < n {
			head, more = cutRune(head), "…"
		}
		body = fmt.Sprintf(`%d bytes starting "%s"%s`, n, textsafe.Escape(resp.Redact(string(head))), more)
	}
	return fmt.Sprintf("status %d, content type %s, %s", resp.Status, textsafe.Escape(ct), body)
}

// describeBytes is how much of a body describe quotes.
const describeBytes = 64

// cutRune drops a character cut short at the end of b.
func cutRune(b []byte) []byte {
	j := len(b) - 1
	for j > 0 && j > len(b)-utf8.UTFMax && !utf8.RuneStart(b[j]) {
		j--
	}
	if j >= 0 && !utf8.FullRune(b[j:]) {
		return b[:j]
	}
	return b
}

// blocking turns answers that make probing pointless into Run's error.
func (p *prober) blocking(ctx context.Context, step string, resp mcphttp.Response, cl mcphttp.Judgement, err error) error {
	switch {
	case err != nil:
		p.note("%s: %s", step, cl.Reason)
		return fmt.Errorf("%w: %s: %w", ErrUnreachable, step, err)
	case cl.Verdict == mcphttp.Redirect:
		p.note("%s: %s", step, cl.Reason)
		return fmt.Errorf("%w: %d", ErrRedirect, resp.Status)
	case cl.Verdict == mcphttp.Auth:
		if err := p.signIn(ctx, step, resp); err != nil {
			return err
		}
		p.note("%s: %s", step, cl.Reason)
		return fmt.Errorf("%w: %d", ErrAuth, resp.Status)
	}
	return nil
}

func (p *prober) endStray(ctx context.Context, sid string) {
	resp, err := p.c.Delete(ctx, sid)
	p.r.Timings[StepCleanup] += resp.Took
	switch {
	case err == nil && resp.Status/100 == 2:
		p.note("server/discover opened a session; the probe ended it")
	case err == nil && resp.Status == http.StatusNotFound:
		// Already gone: the server closed the never-initialized session itself.
	default:
		p.r.SessionLeft = true
		p.note("server/discover opened a session that the probe could not end (%s); it ends at the server's idle timeout", mcphttp.Judge(resp, err).Reason)
	}
}
