package classify

import "strings"

// EndReason is why a server says it ended a session, reduced to what the
// watchdog tells apart.
type EndReason string

// The end reasons a SessionClosed line can give.
const (
	EndIdle     EndReason = "idle"     // its idle timeout ran out
	EndDeleted  EndReason = "deleted"  // the client ended it (DELETE)
	EndShutdown EndReason = "shutdown" // the server stopped or restarted
)

// endReason reads the reason= field of a session-closed line: "" when it
// is absent or names nothing the watchdog is sure of.
func endReason(l []byte) EndReason {
	v, quoted, ok := keyValue(l, "reason")
	if !ok {
		return ""
	}
	word := string(v)
	if quoted {
		word = unquote(v)
	}
	word = strings.ToLower(word)
	for _, r := range []struct {
		reason EndReason
		words  []string
	}{
		{EndIdle, []string{"idle", "timeout", "expired"}},
		{EndDeleted, []string{"delete", "client"}},
		{EndShutdown, []string{"shutdown", "restart", "stop"}},
	} {
		for _, w := range r.words {
			if strings.Contains(word, w) {
				return r.reason
			}
		}
	}
	return ""
}
