package answer_test

import (
	"slices"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/answer"
)

// Each answer a server gives is of the kind the registry says, first
// match wins; an answer of no kind is none.
func TestOf(t *testing.T) {
	t.Parallel()
	session := answer.Facts{Status: 400, Session: true}
	tests := []struct {
		name string
		f    answer.Facts
		want answer.Kind
		none bool // NoSession: there was no session to lose
	}{
		{"404 with a JSON-RPC error", answer.Facts{Status: 404, RPCError: true, Code: -32001}, answer.NotFoundRPC, false},
		{"404 plain text", answer.Facts{Status: 404}, answer.NotFoundText, false},
		{"404 method not found", answer.Facts{Status: 404, RPCError: true, Code: -32601}, answer.MethodNotFound, true},
		{"400 naming the session", session, answer.BadRequest, false},
		{"400 of a modern-only server", answer.Facts{Status: 400, RPCError: true, Code: -32022, ModernOnly: true}, answer.ModernRefusal, true},
		{"200 with a session error", answer.Facts{Status: 200, RPCError: true, Session: true}, answer.SessionError, false},
		{"200 with another error", answer.Facts{Status: 200, RPCError: true}, "", false},
		{"400 about something else", answer.Facts{Status: 400}, "", false},
		{"202 accepted", answer.Facts{Status: 202, RPCError: true, Session: true}, "", false},
		{"500", answer.Facts{Status: 500}, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, ok := answer.Of(tc.f)
			if d.Kind != tc.want || ok != (tc.want != "") || d.NoSession != tc.none {
				t.Fatalf("Of(%+v) = %q (ok %v, no session %v); want %q (no session %v)", tc.f, d.Kind, ok, d.NoSession, tc.want, tc.none)
			}
		})
	}
}

// A status no kind comes with is not worth reading; every kind's is.
func TestMayBe(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]bool{200: true, 201: true, 202: false, 204: false, 400: true, 404: true, 401: false, 500: false, 302: false} {
		if got := answer.MayBe(status); got != want {
			t.Errorf("MayBe(%d) = %v, want %v", status, got, want)
		}
	}
}

// The kinds hosts' tables cover, and what a status document names.
func TestToldAndOfStatus(t *testing.T) {
	t.Parallel()
	if got, want := answer.Told(), []answer.Kind{answer.NotFoundRPC, answer.NotFoundText, answer.BadRequest}; !slices.Equal(got, want) {
		t.Errorf("Told = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		status int
		body   string
		want   answer.Kind
	}{{404, "json-rpc", answer.NotFoundRPC}, {404, "text", answer.NotFoundText}, {404, "", answer.NotFoundText},
		{400, "", answer.BadRequest}, {400, "json-rpc", answer.BadRequest}, {200, "json-rpc", ""}, {0, "", ""}} {
		if got := answer.OfStatus(tc.status, tc.body); got != tc.want {
			t.Errorf("OfStatus(%d, %q) = %q, want %q", tc.status, tc.body, got, tc.want)
		}
	}
	for _, d := range answer.Kinds() {
		if d.Words == "" || d.Kind.Words() != d.Words || d.Kind.Status() != d.Status {
			t.Errorf("kind %q: words %q, status %d: its entry does not answer for it", d.Kind, d.Kind.Words(), d.Kind.Status())
		}
	}
}

// Adding a kind is one entry: matching, the prefilter and the told list
// read it with no other change.
func TestAKindIsOneEntry(t *testing.T) {
	t.Parallel()
	const gone answer.Kind = "410 gone"
	r := append(answer.Kinds(), answer.Def{Kind: gone, Status: 410, Told: true, Words: "a 410",
		Match: func(f answer.Facts) bool { return f.Status == 410 }})
	if answer.MayBe(410) || !r.MayBe(410) {
		t.Fatalf("MayBe(410): the registry %v, with the new entry %v; want false, true", answer.MayBe(410), r.MayBe(410))
	}
	if d, ok := r.Of(answer.Facts{Status: 410}); !ok || d.Kind != gone || d.NoSession {
		t.Fatalf("Of(410) = %+v, %v; want the new kind, a lost session", d, ok)
	}
	if told := r.Told(); told[len(told)-1] != gone {
		t.Fatalf("Told = %q; want the new kind last", told)
	}
}

// The proxy asks the registry of every answer it relays: asking costs no
// allocation (building the table anew each time cost one, and showed in
// the proxy's added latency).
func TestAskingAllocatesNothing(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() {
		_ = answer.MayBe(200)
		_, _ = answer.Of(answer.Facts{Status: 404, RPCError: true})
	}); n != 0 {
		t.Fatalf("MayBe and Of allocate %.0f times a call, want 0", n)
	}
}
