package metrics

import (
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// FuzzLabels feeds arbitrary names through every entry point and checks
// what the registry would expose: allowed label names only, clean values,
// bounded series.
func FuzzLabels(f *testing.F) {
	f.Add("nowledge-mem", "dsh-mcp-client", "host_restart", "healthy")
	f.Add("3f9c2b1e-8d4a-4c6f-9e2b-7a1d5c3e9f00", "ZK4WQ7M2XH5N3JBRT6YV8PLC9D", "a3f59c2b1e8d4a4c6f9e2b7a1d5c3e9f", "lost")
	f.Add("", "", "", "")
	f.Add("a\"b\n", "\xff\xfe", "other", "unknown")
	f.Fuzz(func(t *testing.T, server, client, strategy, state string) {
		m := New()
		for _, kind := range []health.EventKind{"session_lost", "keep_warm_failed", "recovered", "heal_failed"} {
			m.Count(event{Kind: kind, Server: server, Session: server,
				Facts: withID(health.FactsOf(kind), strategy)})
		}
		m.SetSessionIdle(server, client, time.Second)
		m.SetServerState(server, state)
		fams, err := m.reg.Gather()
		if err != nil {
			t.Fatalf("Gather: %v", err)
		}
		allowed := map[string]bool{"server": true, "client": true, "strategy": true, "result": true, "state": true}
		for _, fam := range fams {
			if n := len(fam.GetMetric()); n > 6 {
				t.Errorf("%s has %d series from one name", fam.GetName(), n)
			}
			for _, mm := range fam.GetMetric() {
				for _, l := range mm.GetLabel() {
					v := l.GetValue()
					if !allowed[l.GetName()] || !utf8.ValidString(v) || len(v) > maxLabelLen || looksLikeID(v) {
						t.Errorf("%s: bad label %s=%q", fam.GetName(), l.GetName(), v)
					}
					if v != valueOther && v != valueUnknown && !cleanLabel(v) && v != resultOK && v != resultFailed &&
						v != resultRecovered && !isState(v) {
						t.Errorf("%s: unclean value %s=%q", fam.GetName(), l.GetName(), v)
					}
				}
			}
		}
	})
}

func isState(v string) bool {
	for _, s := range serverStates() {
		if s == v {
			return true
		}
	}
	return false
}
