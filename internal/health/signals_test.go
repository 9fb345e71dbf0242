package health

import (
	"reflect"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// Every signal kind has its typed observation, and each typed field lands
// in the Signal the model applies: a kind added to SignalKind without its
// type, or a field a conversion forgets, fails here.
func TestEveryKindIsTyped(t *testing.T) {
	at := time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)
	line := LogLine{Server: "mem", Session: "s1", Detail: "d", Source: LogPosition{File: "f", Offset: 3}, HostLog: true, History: true}
	all := []Observation{
		SessionLost{line}, IdleTimeoutAnnounced{line, time.Hour}, LegacyHeaderRejected{line}, Reconnected{line},
		SessionClosed{line, EndIdle},
		StoreSnapshot{Server: "mem", Sessions: []StoreSession{{ID: "s1"}}, Truncated: 2, ServerStarted: at, ServerGone: true},
		StoreGone{"mem", "d"}, StoreError{"mem", "d"},
		HostUp{PID: 7, Started: at, Began: at, Restarted: true}, HostDown{},
		Warning{"mem", "d"}, Woke{time.Minute},
		KeepWarmAnswered{Server: "mem", Session: "s1", Outcome: OutcomeLost, Took: time.Second, Detail: "d", NamedBy: IdentitySource("beacon")},
		LivenessAnswered{Server: "mem", Session: "s1", Outcome: OutcomeAlive, Took: time.Second, Detail: "d", Answer: host.NotFoundRPC, Era: EraBoth},
		HealStarted{Server: "mem", Strategy: "s", Within: time.Minute, Detail: "d"}, HealFailed{Server: "mem", Strategy: "s", Detail: "d"},
		BeaconSeen{PID: 7, Held: map[string]Held{"mem": {Session: "s1"}}},
		ProxyHealed{Server: "mem", Session: "s1", NewSession: "s2", Healed: true, Took: time.Second, Detail: "d", Client: "c"},
		ProxyUpstream{"mem", "s1"}, ProxyReleased{"mem", "s1"}, ProxyBridging{"mem", "d"},
		StdioSeen{Server: "fs", Detail: "d", Report: StdioReport{Kind: StdioExited, Host: "opencode", PID: 7}},
	}
	seen := map[SignalKind]bool{}
	for _, o := range all {
		sig := SignalOf(o)
		if seen[sig.Kind] {
			t.Errorf("%T: kind %d typed twice", o, sig.Kind)
		}
		seen[sig.Kind] = true
		if n, m := nonZero(reflect.ValueOf(o)), nonZero(reflect.ValueOf(sig))-1; n != m { // less Kind
			t.Errorf("%T: %d fields set, %d land in its Signal %+v", o, n, m, sig)
		}
	}
	for k := SigSessionLost; k <= SigStdio; k++ {
		if !seen[k] {
			t.Errorf("signal kind %d has no typed observation", k)
		}
	}
}

// nonZero counts the leaf fields of v that are set, through embedded structs.
func nonZero(v reflect.Value) int {
	n := 0
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case f.Kind() == reflect.Struct && v.Type().Field(i).Anonymous:
			n += nonZero(f)
		case !f.IsZero():
			n++
		}
	}
	return n
}
