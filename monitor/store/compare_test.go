package store

import (
	"strings"
	"testing"
	"time"
)

func TestCompare(t *testing.T) {
	t.Parallel()
	a := Session{ID: "aaaa-111111111111", Client: "c", LastActivity: t0800}
	aLater := Session{ID: a.ID, Client: "c", LastActivity: t0930}
	aEarlier := Session{ID: a.ID, Client: "c", LastActivity: t0800.Add(-time.Minute)}
	aUnknown := Session{ID: a.ID, Client: "c"}
	b := Session{ID: "bbbb-222222222222", Client: "d", LastActivity: t0800}
	c := Session{ID: "cccc-333333333333", Client: "e"}
	tests := []struct {
		name                    string
		prev, next              []Session
		added, removed, touched []Session
	}{
		{"both empty", nil, nil, nil, nil, nil},
		{"first snapshot", nil, []Session{b, a}, []Session{a, b}, nil, nil},
		{"all removed", []Session{a, b}, []Session{}, nil, []Session{a, b}, nil},
		{"unchanged", []Session{a, b}, []Session{b, a}, nil, nil, nil},
		{"touched", []Session{a, b}, []Session{aLater, b}, nil, nil, []Session{aLater}},
		{"went back is not touched", []Session{a}, []Session{aEarlier}, nil, nil, nil},
		{"became unknown is not touched", []Session{a}, []Session{aUnknown}, nil, nil, nil},
		{"unknown to known is touched", []Session{aUnknown}, []Session{a}, nil, nil, []Session{a}},
		{"mixed", []Session{a, b}, []Session{aLater, c}, []Session{c}, []Session{b}, []Session{aLater}},
		{"repeated id in next", []Session{a}, []Session{a, aLater}, nil, nil, []Session{aLater}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := Compare(tt.prev, tt.next)
			assertSessions(t, d.Added, tt.added)
			assertSessions(t, d.Removed, tt.removed)
			assertSessions(t, d.Touched, tt.touched)
			empty := len(tt.added)+len(tt.removed)+len(tt.touched) == 0
			if d.Empty() != empty {
				t.Errorf("Empty() = %v, want %v", d.Empty(), empty)
			}
		})
	}
}

func TestSessionStringMasksID(t *testing.T) {
	t.Parallel()
	s := Session{ID: idA, Client: "dsh-mcp-client"}
	if got := s.String(); strings.Contains(got, idA) || !strings.Contains(got, "0f8e…4a5b") {
		t.Errorf("String() = %q, want the id masked as 0f8e…4a5b", got)
	}
	if got := s.LogValue().String(); strings.Contains(got, idA) || !strings.Contains(got, "0f8e…4a5b") {
		t.Errorf("LogValue() = %q, want the id masked", got)
	}
}
