package host

import (
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/answer"
)

// Answer is how a server says a session it does not know is gone: a kind
// of the answer registry (package answer), where each is defined once.
// What a host does next can depend on it.
type Answer = answer.Kind

// The answers hosts' tables cover.
const (
	NotFoundRPC  = answer.NotFoundRPC
	NotFoundText = answer.NotFoundText
	BadRequest   = answer.BadRequest
)

// Answers are the answers a Behaviour covers, in the order they are told.
func Answers() []Answer { return answer.Told() }

// AnswerOf is the answer a server gave: its status, and whether its body
// was a JSON-RPC error. "" for a status that says no lost session.
func AnswerOf(status int, rpc bool) Answer {
	body := "text"
	if rpc {
		body = "json-rpc"
	}
	return answer.OfStatus(status, body)
}

// AnswerOfStatus is the answer a status document gives (ServerStatus's
// lost_answer and lost_answer_body).
func AnswerOfStatus(status int, body string) Answer { return answer.OfStatus(status, body) }

// Reaction is what a host's MCP client does when a server answers that its
// session is gone.
type Reaction string

// The reactions. Reinitializes and Retries heal by themselves; they
// differ in what becomes of the call that met the loss.
const (
	// Unknown: nobody has measured it and its sources do not say; it is
	// taken as stuck until the host is seen to heal itself.
	Unknown Reaction = ""
	// Stuck: it keeps the dead session id; every later call fails until
	// the host (or the server entry) is restarted.
	Stuck Reaction = "stuck"
	// Hangs: every later call waits until the host gives up on it (its
	// tool timeout), and none runs: stuck, slowly.
	Hangs Reaction = "hangs"
	// Reinitializes: it opens a new session, but the call that met the
	// loss fails.
	Reinitializes Reaction = "reinitializes"
	// Retries: it opens a new session and sends the call again, which
	// works.
	Retries Reaction = "retries"
)

// Heals reports whether a host reacting so recovers a lost session
// without help.
func (r Reaction) Heals() bool { return r == Reinitializes || r == Retries }

// Words is what the host does, as a sentence says it.
func (r Reaction) Words() string {
	switch r {
	case Stuck:
		return "keeps the dead session: every later call fails"
	case Hangs:
		return "hangs: every later call waits until it gives up"
	case Reinitializes:
		return "opens a new session, but the call that met the loss fails"
	case Retries:
		return "opens a new session and sends the call again"
	}
	return "does what nobody measured yet (taken as stuck)"
}

// Behaviour is what a host does after each answer: a small table, from
// the host's measured runs (`make hosts`) where it runs here, else from
// its sources and trackers.
type Behaviour struct {
	// React is what the host does after each kind of answer; a kind it
	// does not hold: Unknown.
	React map[Answer]Reaction
	// Measured names the host's version the table was measured on; ""
	// when it comes from the host's sources and trackers.
	Measured string
	// Note says where an unmeasured table comes from, or what else to
	// know of it.
	Note string
	// Stdio is what the host does when one of its stdio servers dies.
	Stdio StdioReaction
}

// every is a behaviour that reacts r to every answer.
func every(r Reaction) Behaviour { return on404(r, r) }

// on404 is a behaviour that reacts r404 to both 404s and r400 to the 400.
func on404(r404, r400 Reaction) Behaviour {
	return Behaviour{React: map[Answer]Reaction{NotFoundRPC: r404, NotFoundText: r404, BadRequest: r400}}
}

// measured is b as measured on version.
func (b Behaviour) measured(version string) Behaviour {
	b.Measured = version
	return b
}

// from is b with the note that says where it comes from.
func (b Behaviour) from(note string) Behaviour {
	b.Note = note
	return b
}

// On is the host's reaction to answer a. For an answer not known yet
// (""), the spec's 404: what it does after both kinds when they agree,
// else Unknown.
func (b Behaviour) On(a Answer) Reaction {
	if a != "" {
		return b.React[a]
	}
	if r := b.React[NotFoundRPC]; r == b.React[NotFoundText] {
		return r
	}
	return Unknown
}

// Heals reports whether the host heals itself after answer a.
func (b Behaviour) Heals(a Answer) bool { return b.On(a).Heals() }

// HealsAny reports whether the host heals itself after some answer.
func (b Behaviour) HealsAny() bool {
	for _, a := range Answers() {
		if b.Heals(a) {
			return true
		}
	}
	return false
}

// Healed lists the answers the host heals itself after, in words ("a
// 404 with a JSON-RPC error or a plain-text 404").
func (b Behaviour) Healed() string {
	var out []string
	for _, a := range Answers() {
		if b.Heals(a) {
			out = append(out, a.Words())
		}
	}
	return strings.Join(out, " or ")
}

// Summary is the table on one line: "404 json-rpc: retries, 404 text:
// retries, 400: hangs", the reactions nobody knows as "not known".
func (b Behaviour) Summary() string {
	parts := make([]string, 0, 3)
	for _, a := range Answers() {
		r := string(b.On(a))
		if r == "" {
			r = "not known"
		}
		parts = append(parts, string(a)+": "+r)
	}
	return strings.Join(parts, ", ")
}
