package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpwatchdog/watchdog/internal/answer"
)

// Verdict is what an answer to a POST says about the session it carried.
// The zero value is VerdictUnknown, so a forgotten Judgement never
// reads as Alive.
type Verdict int

const (
	VerdictUnknown Verdict = iota
	// Alive: the server answered the request on the session.
	Alive
	// Lost: the server no longer knows the session; start over with
	// initialize.
	Lost
	// Stateless: a 2026-07-28 server; there is no session to lose.
	Stateless
	// Auth: the server wants credentials (401/403).
	Auth
	// Down: no usable answer now (refused, timeout, reset, 5xx, 429). Never
	// a loss: the session may well survive a restart or an overload.
	Down
	// Redirect: the server answered 3xx; it was not followed.
	Redirect
	// Unexpected: an answer none of the rules explain.
	Unexpected
)

var verdictNames = [...]string{"unknown", "alive", "lost", "stateless", "auth", "down", "redirect", "unexpected"}

func (v Verdict) String() string {
	if v < 0 || int(v) >= len(verdictNames) {
		return fmt.Sprintf("Verdict(%d)", int(v))
	}
	return verdictNames[v]
}

// MarshalText writes the verdict's name, for journals and JSON.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Judgement is a verdict with one human sentence saying why, and the
// kind of answer it was, if it was of one (Kinds).
type Judgement struct {
	Verdict Verdict
	Reason  string
	Kind    answer.Kind
}

// Judge reads the answer to a POST (a ping or any request on a session).
// It is for POST answers only: a 404 on the standalone GET stream is only a
// hint (some servers answer GET with 404 on a live session, and treating that
// as a loss makes clients reconnect in a loop); confirm it with a ping.
//
// The rules, in order: transport error → Down (a body over the size limit →
// Unexpected); 3xx → Redirect; 401/403 → Auth; 429, 5xx → Down; an answer
// of a kind in the registry (Kinds: 404 -32601 and the 400 of a
// modern-only server → Stateless; any other 404, a 400 naming the session,
// a 2xx carrying a session error → Lost) → its verdict; other 400 →
// Unexpected; 2xx with a result or another JSON-RPC error → Alive;
// anything else → Unexpected.
func Judge(resp Response, err error) Judgement {
	if err != nil {
		return classifyErr(err)
	}
	s := resp.Status
	switch {
	case s >= 300 && s < 400:
		return Judgement{Verdict: Redirect, Reason: fmt.Sprintf("the server redirected (%d) to %q; redirects are not followed so session ids stay with the configured origin: configure the final URL", s, resp.Redact(resp.Header.Get("Location")))}
	case s == http.StatusUnauthorized && isOAuth(resp.Header):
		return Judgement{Verdict: Auth, Reason: "the server signs in with OAuth (401 naming its RFC 9728 metadata): the host signs in itself, with tokens bound to the server's own URL; no header in the watchdog's config stands in for that"}
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		return Judgement{Verdict: Auth, Reason: fmt.Sprintf("the server refused the request (%d): configure the %s header for this server", s, authHeader(resp))}
	case s == http.StatusTooManyRequests:
		return Judgement{Verdict: Down, Reason: "the server is rate limiting (429); the session is not lost"}
	case s >= 500:
		return Judgement{Verdict: Down, Reason: fmt.Sprintf("the server failed (%d); the session is not known to be lost", s)}
	}
	if d, ok := answer.Of(FactsOf(resp)); ok {
		return kindJudgement(d, resp)
	}
	switch {
	case s == http.StatusBadRequest:
		return Judgement{Verdict: Unexpected, Reason: fmt.Sprintf("the server answered 400: %s", snippet(resp))}
	case s >= 200 && s < 300:
		return classify2xx(resp)
	}
	return Judgement{Verdict: Unexpected, Reason: fmt.Sprintf("the server answered %d: %s", s, snippet(resp))}
}

// JudgeRaw is Judge for an answer someone else read (the proxy
// relays the host's own requests): its status, headers and the start of
// its body. The JSON-RPC message is the body's one response, whatever its
// id, since the request was the host's.
func JudgeRaw(status int, header http.Header, body []byte) Judgement {
	resp := Response{Status: status, Header: header, Body: body}
	if msgs, ok := decodeMessages(body); ok && len(msgs) == 1 && msgs[0].IsResponse() {
		resp.RPC = &msgs[0]
	}
	return Judge(resp, nil)
}

func classifyErr(err error) Judgement {
	switch {
	case errors.Is(err, ErrBodyTooLarge):
		return Judgement{Verdict: Unexpected, Reason: "the server's answer exceeded the size limit"}
	case errors.Is(err, context.DeadlineExceeded):
		return Judgement{Verdict: Down, Reason: "the server did not answer in time"}
	case errors.Is(err, context.Canceled):
		return Judgement{Verdict: Down, Reason: "the request was cancelled before the server answered"}
	}
	return Judgement{Verdict: Down, Reason: fmt.Sprintf("the server could not be reached: %v", err)}
}

func classify2xx(resp Response) Judgement {
	switch {
	case resp.RPC != nil:
		return Judgement{Verdict: Alive, Reason: fmt.Sprintf("the server answered %d", resp.Status)}
	case resp.Status == http.StatusAccepted || resp.Status == http.StatusNoContent:
		return Judgement{Verdict: Alive, Reason: fmt.Sprintf("the server accepted the message (%d)", resp.Status)}
	}
	return Judgement{Verdict: Unexpected, Reason: fmt.Sprintf("the server answered %d without a JSON-RPC response to our request", resp.Status)}
}

func isOAuth(h http.Header) bool {
	_, ok := OAuthChallenge(h)
	return ok
}

// FactsOf is what the answer registry reads of an HTTP answer.
func FactsOf(resp Response) answer.Facts {
	f := answer.Facts{Status: resp.Status, ModernOnly: ModernOnlyRefusal(resp)}
	if resp.RPC != nil && resp.RPC.Error != nil {
		f.RPCError, f.Code = true, int64(resp.RPC.Error.Code)
		f.Session = sessionComplaint(resp.RPC.Error.Message)
	}
	if resp.Status == http.StatusBadRequest {
		f.Session = sessionComplaint(errText(resp))
	}
	return f
}

// kindJudgement is the verdict and the sentence for an answer of kind d.
func kindJudgement(d answer.Def, resp Response) Judgement {
	j := Judgement{Verdict: Lost, Kind: d.Kind}
	if d.NoSession {
		j.Verdict = Stateless
	}
	switch d.Kind {
	case answer.MethodNotFound:
		j.Reason = "the server answered 404 method not found (-32601): a 2026-07-28 server without sessions or ping; nothing to lose"
	case answer.ModernRefusal:
		j.Reason = fmt.Sprintf("the server serves only the 2026-07-28 protocol and refused a legacy request (%s); it has no session to lose", snippet(resp))
	case answer.BadRequest:
		j.Reason = fmt.Sprintf("the server answered 400 about the session (%s): it does not know it", snippet(resp))
	case answer.SessionError:
		j.Reason = fmt.Sprintf("the server answered %d with a session error: %s", resp.Status, clip(resp.Redact(resp.RPC.Error.Message)))
	default:
		j.Reason = fmt.Sprintf("the server answered %d (%s): it no longer knows the session", resp.Status, snippet(resp))
	}
	return j
}
