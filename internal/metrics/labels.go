package metrics

import (
	"sync"
)

// Label values that stand in for anything not accepted.
const (
	valueOther   = "other"   // a value outside the allowed set or not usable as a label
	valueUnknown = "unknown" // no value given
)

const (
	maxLabelLen   = 64 // matches the config's limit on server names
	maxOpenValues = 32 // distinct values an unconfigured label may take
	minIDLikeLen  = 16 // shorter alphanumeric runs are names, not ids
	maxNameRun    = 32 // a longer alphanumeric run is taken for an id even without digits
)

// labelSet turns caller-supplied strings into label values of bounded
// cardinality. With a fixed set, only its members pass; otherwise any
// clean value passes until maxOpenValues distinct ones have been seen.
type labelSet struct {
	fixed bool
	mu    sync.Mutex
	seen  map[string]struct{}
}

func newLabelSet(allowed []string) *labelSet {
	s := &labelSet{fixed: len(allowed) > 0, seen: make(map[string]struct{})}
	for _, v := range allowed {
		if v != "" {
			s.seen[v] = struct{}{}
		}
	}
	return s
}

// value returns v itself when allowed, "unknown" for an empty v, and
// "other" for everything else.
func (s *labelSet) value(v string) string {
	if v == "" {
		return valueUnknown
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[v]; ok {
		return v
	}
	if s.fixed || len(s.seen) >= maxOpenValues || !cleanLabel(v) {
		return valueOther
	}
	s.seen[v] = struct{}{}
	return v
}

// members lists the fixed set (nil for an open set), for pre-creating series.
func (s *labelSet) members() []string {
	if !s.fixed {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.seen))
	for v := range s.seen {
		out = append(out, v)
	}
	return out
}

// cleanLabel accepts short names of the config's alphabet (plus '@', '/'
// and space, which client names use) that do not look like a session id.
func cleanLabel(v string) bool {
	if v == "" || len(v) > maxLabelLen || v == valueOther || v == valueUnknown {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !nameByte(v[i]) {
			return false
		}
	}
	return !looksLikeID(v)
}

func nameByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '.', '_', '-', '@', '/', ' ':
		return true
	}
	return false
}

// looksLikeID reports a value shaped like a session id: a long run of
// letters and digits mixing both (UUIDs, hex, base32/base64 tokens), or a
// very long run of either, once dashes and underscores are dropped. Names
// like "nowledge-mem" or "dsh-mcp-client" have no digits and short runs.
func looksLikeID(v string) bool {
	run, letters, digits := 0, false, false
	for i := 0; i <= len(v); i++ {
		if i < len(v) {
			c := v[i]
			switch {
			case c == '-' || c == '_':
				continue
			case '0' <= c && c <= '9':
				run, digits = run+1, true
				continue
			case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
				run, letters = run+1, true
				continue
			}
		}
		if run >= maxNameRun || (run >= minIDLikeLen && letters && digits) {
			return true
		}
		run, letters, digits = 0, false, false
	}
	return false
}
