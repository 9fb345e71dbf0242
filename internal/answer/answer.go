// Package answer is the one registry of the ways a server says that a
// session it was asked about is gone, or never was: each kind is defined
// once, in Kinds, with how to know it, what it says of the session and
// how a sentence names it. mcphttp judges answers by it, hosts' behaviour
// tables map its kinds to what each host does next, and the health model
// carries a kind in its signals. It is pure data and pure functions: the
// model reads it.
package answer

import "slices"

// Kind is one way an answer says a session is gone or never was.
type Kind string

// The kinds, as `watchdog status` and `watchdog hosts` name them.
const (
	// NotFoundRPC: 404 with a JSON-RPC error body (-32001, -32600): the
	// TypeScript and Python SDKs.
	NotFoundRPC Kind = "404 json-rpc"
	// NotFoundText: 404 with any other body ("session not found"): the Go
	// SDK, rmcp.
	NotFoundText Kind = "404 text"
	// BadRequest: 400 naming the session: the TypeScript SDK's examples.
	BadRequest Kind = "400"
	// SessionError: a 2xx carrying a JSON-RPC error about the session.
	SessionError Kind = "2xx session error"
	// MethodNotFound: 404 -32601, a 2026-07-28 server's answer to a legacy
	// ping: there is no session to lose.
	MethodNotFound Kind = "404 method not found"
	// ModernRefusal: 400 -32022 naming only 2026-07-28 or later: a
	// modern-only server refused a legacy request; no session to lose.
	ModernRefusal Kind = "2026-07-28 refusal"
	// StdioExit: a stdio server died under its host (no HTTP answer).
	StdioExit Kind = "stdio exit"
)

// Facts are what is known of an answer, read by whoever holds it (mcphttp
// from an HTTP answer).
type Facts struct {
	Status int
	// RPCError: the body was one JSON-RPC response carrying an error, of
	// code Code.
	RPCError bool
	Code     int64
	// Session: the error's message (for a 400, with the body's text) names
	// a missing, invalid, unknown or expired session.
	Session bool
	// ModernOnly: a -32022 naming only 2026-07-28 or later.
	ModernOnly bool
}

// codeMethodNotFound is JSON-RPC's -32601.
const codeMethodNotFound = -32601

// Def is one entry of the registry.
type Def struct {
	Kind Kind
	// Status is the HTTP status the answer comes with; 200 stands for any
	// 2xx with a body, 0 for none (a stdio server's death).
	Status int
	// Body tells two kinds of one status apart: "json-rpc" or "text" for
	// the 404s, "" for the rest.
	Body string
	// NoSession: the answer says there is no session to lose (a 2026-07-28
	// server); otherwise the session is lost and the client must start
	// over with initialize.
	NoSession bool
	// Told: hosts' behaviour tables say what a host does after it.
	Told bool
	// Words is the kind as a sentence says it.
	Words string
	// Match reports whether an answer is of this kind; nil: no HTTP answer
	// is (a stdio server's death).
	Match func(Facts) bool
}

// Registry is a list of kinds, in the order answers are matched and kinds
// told. Everything that reads kinds reads them through one.
type Registry []Def

// Kinds is the registry, a copy of it. Adding a kind is one entry in
// registry, and its tests.
func Kinds() Registry { return slices.Clone(registry) }

// registry is never written: built once because the proxy asks it of
// every answer it relays, where building it anew cost an allocation each.
var registry = Registry{
	{Kind: MethodNotFound, Status: 404, NoSession: true, Words: "a 404 method not found",
		Match: func(f Facts) bool { return f.Status == 404 && f.RPCError && f.Code == codeMethodNotFound }},
	{Kind: NotFoundRPC, Status: 404, Body: "json-rpc", Told: true, Words: "a 404 with a JSON-RPC error",
		Match: func(f Facts) bool { return f.Status == 404 && f.RPCError }},
	{Kind: NotFoundText, Status: 404, Body: "text", Told: true, Words: "a plain-text 404",
		Match: func(f Facts) bool { return f.Status == 404 }},
	{Kind: ModernRefusal, Status: 400, NoSession: true, Words: "a 400 refusing the legacy protocol",
		Match: func(f Facts) bool { return f.Status == 400 && f.ModernOnly }},
	{Kind: BadRequest, Status: 400, Told: true, Words: "a 400",
		Match: func(f Facts) bool { return f.Status == 400 && f.Session }},
	{Kind: SessionError, Status: 200, Words: "a success carrying a session error",
		Match: func(f Facts) bool { return success(f.Status) && f.RPCError && f.Session }},
	{Kind: StdioExit, Words: "the server's exit"},
}

// success: a 2xx that may carry a body (not 202 Accepted, 204 No Content).
func success(status int) bool { return status >= 200 && status < 300 && status != 202 && status != 204 }

// Of is the kind of an answer, and its entry; ok false for an answer of
// none (alive, down, refused, ...).
func Of(f Facts) (Def, bool) { return registry.Of(f) }

// Of is the kind of an answer in r, and its entry.
func (r Registry) Of(f Facts) (Def, bool) {
	if !r.MayBe(f.Status) {
		return Def{}, false
	}
	for _, d := range r {
		if d.Match != nil && d.Match(f) {
			return d, true
		}
	}
	return Def{}, false
}

// MayBe reports whether an answer of this HTTP status can be of a kind at
// all, so is worth reading: the one prefilter every reader of answers asks
// before it reads a body.
func MayBe(status int) bool { return registry.MayBe(status) }

// MayBe reports whether an answer of this status can be of a kind in r.
func (r Registry) MayBe(status int) bool {
	for _, d := range r {
		if d.Status != 0 && (d.Status == status || d.Status == 200 && success(status)) {
			return true
		}
	}
	return false
}

// Def is k's entry (Words "an answer not known yet" for a kind the
// registry does not hold, "" included).
func (k Kind) Def() Def {
	for _, d := range registry {
		if d.Kind == k {
			return d
		}
	}
	return Def{Words: "an answer not known yet"}
}

// Words is the kind as a sentence says it ("a 404 with a JSON-RPC error").
func (k Kind) Words() string { return k.Def().Words }

// Status is the HTTP status the kind comes with (0 for none).
func (k Kind) Status() int { return k.Def().Status }

// Body is what tells the kind from another of its status: "json-rpc",
// "text" or "".
func (k Kind) Body() string { return k.Def().Body }

// Told are the kinds hosts' behaviour tables cover, in the order they are
// told.
func Told() []Kind { return registry.Told() }

// Told are r's kinds hosts' tables cover.
func (r Registry) Told() []Kind {
	var out []Kind
	for _, d := range r {
		if d.Told {
			out = append(out, d.Kind)
		}
	}
	return out
}

// OfStatus is the told kind a status and its body's shape name ("json-rpc"
// or anything else): what a status document gives. "" for none.
func OfStatus(status int, body string) Kind {
	for _, d := range registry {
		if d.Told && d.Status == status && (d.Body == "" || d.Body == body || d.Body == "text" && body != "json-rpc") {
			return d.Kind
		}
	}
	return ""
}
