package proxy

import (
	"net/http"
	"time"
)

// backoff bounds a request sent again: for at most total, waiting first,
// doubling to most.
type backoff struct{ total, first, most time.Duration }

// sendAgainWhile sends r (with body, on the upstream session up) and, while
// again says its failure left the server untouched, sends it again,
// backing off, until it goes through, the host goes away or b's time is
// up. What again accepts is the caller's promise that nothing ran.
func (p *Proxy) sendAgainWhile(r *http.Request, body []byte, up string, b backoff, again func(error) bool) (*http.Response, error) {
	deadline := time.Now().Add(b.total)
	wait := b.first
	for {
		resp, err := p.send(r.Context(), r, body, up)
		if err == nil || !again(err) || time.Now().Add(wait).After(deadline) {
			return resp, err
		}
		t := time.NewTimer(wait)
		select {
		case <-r.Context().Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
		wait = min(2*wait, b.most)
	}
}
