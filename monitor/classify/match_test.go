package classify

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveHits is the reference: every occurrence of every literal.
func naiveHits(t []byte, lits []string) []hit {
	var out []hit
	for i := range t {
		for k, l := range lits {
			if bytes.HasPrefix(t[i:], []byte(l)) {
				out = append(out, hit{pos: i, lit: k})
			}
		}
	}
	return out
}

func sortHits(h []hit) {
	slices.SortFunc(h, func(a, b hit) int {
		if a.pos != b.pos {
			return a.pos - b.pos
		}
		return a.lit - b.lit
	})
}

// TestMatcherAgainstNaive checks the skip tables on text dense with
// fragments of the literals, at every length around the interleave cut.
func TestMatcherAgainstNaive(t *testing.T) {
	t.Parallel()
	lits := std.lits
	r := rand.New(rand.NewPCG(7, 11))
	pieces := append(slices.Clone(lits), "\n", " ", "session", "Session not", "reconnect", "ed", "SSE", "404", "-Id", "\x00", "é")
	for n := 0; n < 3000; n++ {
		var b []byte
		for len(b) < n%900 {
			p := pieces[r.IntN(len(pieces))]
			if r.IntN(3) == 0 && len(p) > 3 { // a broken literal
				p = p[:r.IntN(len(p))]
			}
			b = append(b, p...)
		}
		got := std.match.find(b, nil)
		want := naiveHits(b, lits)
		sortHits(got)
		if !slices.Equal(got, want) {
			t.Fatalf("len %d: got %v, want %v\ntext %q", len(b), got, want, b)
		}
		var mask uint64
		for _, h := range want {
			mask |= 1 << uint(h.lit)
		}
		if pm := std.match.present(b); pm != mask {
			t.Fatalf("present = %b, want %b", pm, mask)
		}
	}
}

func TestMatcherEdges(t *testing.T) {
	t.Parallel()
	mt := newMatcher([]string{"abc", "xyzabc", "bcd"})
	tests := []struct {
		text string
		want []hit
	}{
		{"", nil},
		{"ab", nil},
		{"abc", []hit{{0, 0}}},
		{"xyzabcd", []hit{{0, 1}, {3, 0}, {4, 2}}},
		{"abcabc", []hit{{0, 0}, {3, 0}}},
	}
	for _, tc := range tests {
		got := mt.find([]byte(tc.text), nil)
		sortHits(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %v, want %v", tc.text, got, tc.want)
		}
	}
	for _, bad := range [][]string{nil, {"ab"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("newMatcher(%q) did not panic", bad)
				}
			}()
			newMatcher(bad)
		}()
	}
}
