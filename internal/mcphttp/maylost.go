package mcphttp

import (
	"bytes"
	"net/http"

	"github.com/mcpwatchdog/watchdog/internal/answer"
)

// MayMeanLost reports whether an answer whose head says this may tell
// that the session it carried is lost (or that there is none), and so
// must be read, its first max bytes, before it is relayed: a 404 or a 400
// (answer.MayBe), and a 2xx only when it is JSON whose whole body, of
// known length, fits in max and is at hand already (have: the bytes of it
// the reader holds without waiting). A success is the common answer: it
// is never made to wait for its own body, and an event stream, or a body
// of unknown length, is never held back. Every transport of the proxy
// asks it; JudgeRead then judges what was read.
func MayMeanLost[T string | []byte](status int, contentType T, length, have, max int64) bool {
	if !answer.MayBe(status) {
		return false
	}
	if status/100 != 2 {
		return true
	}
	return length > 0 && length <= max && length <= have && isJSON(contentType)
}

// JudgeRead judges an answer MayMeanLost had read: its status, headers
// and first bytes. A 2xx whose bytes carry no JSON-RPC error is Alive
// without decoding them: a success is the common answer.
func JudgeRead(status int, header http.Header, body []byte) Judgement {
	if status/100 == 2 && !bytes.Contains(body, []byte(`"error"`)) {
		// A constant reason: this is every relayed success's path.
		return Judgement{Verdict: Alive, Reason: "the server answered with a success that carries no error"}
	}
	return JudgeRaw(status, header, body)
}

// isJSON reports whether a Content-Type is JSON: application/json, or a
// +json type, parameters aside, in any case.
func isJSON[T string | []byte](ct T) bool {
	n := len(ct)
	for i := 0; i < len(ct); i++ {
		if ct[i] == ';' {
			n = i
			break
		}
	}
	for n > 0 && (ct[n-1] == ' ' || ct[n-1] == '\t') {
		n--
	}
	return equalFold(ct[:n], "application/json") || hasSuffixFold(ct[:n], "+json")
}

func hasSuffixFold[T string | []byte](s T, suffix string) bool {
	return len(s) >= len(suffix) && equalFold(s[len(s)-len(suffix):], suffix)
}

// equalFold compares ASCII case-insensitively.
func equalFold[T string | []byte](s T, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(t); i++ {
		a, b := s[i], t[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}
