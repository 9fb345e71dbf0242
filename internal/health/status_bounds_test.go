package health

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestStatusBoundsSessions: a server tracking more sessions than
// MaxStatusSessions lists that many, says how many it left out, and keeps
// the host's current session among them even when it is the most idle.
func TestStatusBoundsSessions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		others      int
		wantListed  int
		wantOmitted int
	}{
		{others: 3, wantListed: 4},
		{others: MaxStatusSessions - 1, wantListed: MaxStatusSessions},
		{others: MaxStatusSessions + 4, wantListed: MaxStatusSessions, wantOmitted: 5},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.others), func(t *testing.T) {
			t.Parallel()
			m := newTestModel(12 * time.Hour)
			m.Apply(HostUp{PID: 42, Started: t0.Add(-time.Hour)}, t0)
			ss := []StoreSession{sess("host-session-0001", hostClient, t0, t0)}
			for i := range tt.others {
				ss = append(ss, sess(fmt.Sprintf("other-%08d", i), "claude", t0.Add(-2*time.Hour), t0.Add(time.Duration(i+1)*time.Second)))
			}
			m.Apply(snap(ss...), t0)
			st := m.Status(t0.Add(time.Hour))
			got := st.Servers[0]
			if len(got.Sessions) != tt.wantListed || got.SessionsOmitted != tt.wantOmitted {
				t.Fatalf("listed %d, omitted %d; want %d, %d", len(got.Sessions), got.SessionsOmitted, tt.wantListed, tt.wantOmitted)
			}
			current := 0
			for _, s := range got.Sessions {
				if s.Current {
					current++
				}
			}
			if current != 1 {
				t.Errorf("%d current sessions listed, want the host's one", current)
			}
			doc, err := json.Marshal(st)
			if err != nil {
				t.Fatal(err)
			}
			if has := strings.Contains(string(doc), `"sessions_omitted"`); has != (tt.wantOmitted > 0) {
				t.Errorf("sessions_omitted in the document: %v, want %v", has, tt.wantOmitted > 0)
			}
		})
	}
}
