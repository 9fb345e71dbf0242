// Package mask hides credentials before they leave the process: session
// ids (ID) and what a URL may carry besides its address (URL).
package mask

import (
	"crypto/sha256"
	"fmt"

	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

// Lengths (in characters) at which ID shows more of an id.
const (
	minShown = 12 // from here: the first 2 and last 2 characters
	fullShow = 16 // from here: the first 4 and last 4 (the contract's form)
)

// ID masks a session id for display:
//
//   - "" stays "";
//   - under 12 characters: "#" and the first 4 hex digits of the id's
//     SHA-256 ("#3fa2"), which shows no character of the id yet tells two
//     short ids apart;
//   - 12 to 15 characters: the first 2 and last 2 around "…" (no more
//     than 4 characters of a short credential);
//   - 16 and longer: the first 4 and last 4 around "…".
//
// The characters shown are escaped (textsafe.Escape): an id is any string
// a store or a server chose, so it may hold control or bidi characters.
func ID(id string) string {
	if id == "" {
		return ""
	}
	r := []rune(id)
	switch {
	case len(r) < minShown:
		return fmt.Sprintf("#%x", sha256.Sum256([]byte(id)))[:5]
	case len(r) < fullShow:
		return textsafe.Escape(string(r[:2])) + "…" + textsafe.Escape(string(r[len(r)-2:]))
	}
	return textsafe.Escape(string(r[:4])) + "…" + textsafe.Escape(string(r[len(r)-4:]))
}
