package proxy

import "net/http"

// getBytes is table.get for an id the fast path read (no copy of it),
// and whether the session is bridged (bridge.go), read under the same lock.
func (t *table) getBytes(id []byte) (*session, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.byID[string(id)]
	return s, s != nil && s.bridged
}

// sameKept reports whether keptHeader(h.header()) would equal kept,
// without making it: the same header lines kept, each with the one value.
func (h *reqHead) sameKept(kept http.Header) bool {
	if h.kept != len(kept) {
		return false
	}
	var buf [128]byte
	for i := range h.n {
		if h.lines[i].kind != lineKept {
			continue
		}
		name := canonical(buf[:], h.name(i))
		if name == nil {
			return false
		}
		vs := kept[string(name)]
		if len(vs) != 1 || vs[0] != string(h.value(i)) {
			return false
		}
	}
	return true
}
