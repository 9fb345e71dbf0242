package host

// StdioReaction is what a host does when one of its stdio servers (a
// child process it started) dies: measured by killing the server between
// two calls, or "" (Unknown) where nobody measured it, which is taken as
// stuck. Its reactions are the HTTP table's words: Stuck (it never starts
// the server again: every later call fails), Reinitializes (it starts it
// again at the next call, but fails that call), Retries (it starts it
// again, and the next call works).
type StdioReaction struct {
	On Reaction
	// Measured names the host's version it was measured on; "" when
	// nobody measured it.
	Measured string
	// Note is what the host said after the death, or where the word
	// comes from.
	Note string
}

// Heals reports whether the host starts a dead stdio server again by
// itself.
func (r StdioReaction) Heals() bool { return r.On.Heals() }

// Words is what the host does when its stdio server dies, as a sentence
// says it.
func (r StdioReaction) Words() string {
	switch r.On {
	case Stuck, Hangs:
		return "never starts it again: every later call fails until the host restarts"
	case Reinitializes:
		return "starts it again at the next call, but fails that call"
	case Retries:
		return "starts it again, and the next call works"
	}
	return "does what nobody measured yet (taken as stuck: never starts it again)"
}

// Word is the reaction's one word for a table: "stuck", "reinitializes",
// "retries", or "unknown".
func (r StdioReaction) Word() string {
	if r.On == Unknown {
		return "unknown"
	}
	return string(r.On)
}

// onStdio is b with the host's reaction to a dead stdio server, measured
// on version (what it said then in note).
func (b Behaviour) onStdio(r Reaction, version, note string) Behaviour {
	b.Stdio = StdioReaction{On: r, Measured: version, Note: note}
	return b
}

// stdioFrom is b with an unmeasured stdio reaction and where it comes from.
func (b Behaviour) stdioFrom(note string) Behaviour {
	b.Stdio = StdioReaction{Note: note}
	return b
}

// notMeasuredStdio is the note of a host whose stdio reaction nobody
// measured.
const notMeasuredStdio = "not measured: taken as stuck"
