package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// errNoAnswer: the server took a request and sent no answer (not even its
// headers) within Options.AnswerTimeout.
var errNoAnswer = errors.New("the server did not answer in time")

// doWithin sends req, cancelling it when no answer's headers come within
// d. Only the wait for the headers is bounded: an answer that streams (SSE,
// a GET stream) lasts as long as it does. The request is sent once, and a
// request the server never answered is not sent again: whether it ran is
// unknown.
func (p *Proxy) doWithin(req *http.Request, d time.Duration) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	timer := time.AfterFunc(d, func() { cancel(errNoAnswer) })
	resp, err := p.roundTrip(req.WithContext(ctx))
	if !timer.Stop() {
		// Fired: the answer, if one came at this very instant, is cut anyway.
		if err == nil {
			resp.Body.Close()
		}
		cancel(nil)
		return nil, noAnswerWithin(d)
	}
	if err != nil {
		cancel(nil)
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: func() { cancel(nil) }}
	return resp, nil
}

// cancelOnClose releases an answer's context with its body.
type cancelOnClose struct {
	io.ReadCloser
	cancel func()
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// roundTrip sends req on the proxy's own transport, or its client's.
func (p *Proxy) roundTrip(req *http.Request) (*http.Response, error) {
	if p.rt == nil {
		return p.hc.Do(req)
	}
	resp, err := p.rt.RoundTrip(req)
	if err != nil {
		// As the client would: the URL (masked by send) with the error.
		op := req.Method[:1] + strings.ToLower(req.Method[1:]) // "Post", as the client says it
		return nil, &url.Error{Op: op, URL: req.URL.String(), Err: err}
	}
	return resp, nil
}

// noAnswerWithin is the error for a request the server did not answer
// within d, on either transport.
func noAnswerWithin(d time.Duration) error {
	return fmt.Errorf("%w: nothing came within %s; the request was sent once and is not sent again", errNoAnswer, d)
}

// redirected is the error for a redirect, on either transport: never
// followed, and never handed on (the host would follow it with its
// credentials to wherever it points).
func redirected(status int) error {
	return fmt.Errorf("the server redirected (%d); redirects are not followed: configure the final URL as the server's url", status)
}

// answerCut is what the log says of an answer over the size limit.
const answerCut = "an answer exceeded the proxy's size limit; cut short"
