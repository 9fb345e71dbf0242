package journal

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// TestEveryKindRoundTrips writes an event of every kind in the vocabulary,
// with every field of its family set, and reads it back whole: a new kind
// or family that the journal cannot carry fails here.
func TestEveryKindRoundTrips(t *testing.T) {
	t.Parallel()
	for _, info := range health.Kinds() {
		for _, f := range sampleFacts(t, info.Facts) {
			ev := health.Event{Time: t0, Kind: info.Kind, Server: "mem", Session: "0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b",
				Detail: "what happened", Facts: f, Extra: map[string]any{"pid": 42},
				Log: health.LogPosition{File: "/logs/mem.log", Fingerprint: "9f3e", Offset: 4096}}
			line, err := Encode(ev)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(line)
			if err != nil {
				t.Fatalf("%s: %v", info.Kind, err)
			}
			want := ev
			want.Session = "0f8e…4a5b"
			if r, ok := want.Facts.(health.Recovery); ok {
				r.NewSession = "9a8b…7e6f"
				want.Facts = r
			}
			want.Extra = map[string]any{"pid": float64(42)}
			if !reflect.DeepEqual(health.Event(got), want) {
				t.Errorf("%s read back differs:\n got %+v\nwant %+v\nline %s", info.Kind, got, want, line)
			}
		}
	}
}

// sampleFacts are values of family with every field that is journaled set
// (nil for a kind without facts); a loss twice, the host's and another
// client's, which are written apart.
func sampleFacts(t *testing.T, family health.Facts) []health.Facts {
	t.Helper()
	switch family.(type) {
	case nil:
		return []health.Facts{nil}
	case health.Opened:
		return []health.Facts{health.Opened{Client: "claude"}}
	case health.Ended:
		return []health.Facts{health.Ended{Client: "claude", Idle: 426 * time.Second}}
	case health.Loss:
		return []health.Facts{health.Loss{Client: "claude"}, health.Loss{Incident: true, Source: health.SourceBeacon}}
	case health.Risk:
		return []health.Facts{health.Risk{Idle: 426 * time.Second, ExpiresIn: 174 * time.Second, Source: health.SourceInferred}}
	case health.Recovery:
		return []health.Facts{health.Recovery{Strategy: "client_recovery", Took: 1500 * time.Millisecond,
			NewSession: "9a8b7c6d-5e4f-3a2b-1c0d-9e8f7a6b5c4d3e2f1a0b9c8d7e6f", Source: health.SourceProxy}}
	case health.Ping:
		return []health.Facts{health.Ping{Took: 1500 * time.Millisecond, Source: health.SourceBeacon}}
	case health.Attempt:
		return []health.Facts{health.Attempt{Strategy: "client_recovery"}}
	case health.Notice:
		return []health.Facts{health.Notice{About: "lost"}, health.Notice{About: "recovered", Thread: "mem@1764493200123456789"}}
	case health.Supervised:
		return []health.Facts{health.Supervised{Took: 120 * time.Millisecond, Exit: "signal: killed", Stderr: "fatal: out of memory",
			Method: "tools/call", Starts: 2, Supervisor: 4242, Child: 4243}, health.Supervised{Supervisor: 4242}}
	}
	t.Fatalf("no sample value for the family %T: add one", family)
	return nil
}

// A line written before the fields were typed reads back into them.
func TestDecodeOldLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want Record
	}{
		{`{"detail":"mem recovered after 1m5s: the host opened a new session","kind":"recovered","server":"mem","session":"host…aaaa","strategy":"client_recovery","time":"2026-11-30T09:09:05.123456789Z","took_ms":65000}`,
			Record{Time: t0.Add(9*time.Minute + 5*time.Second), Kind: health.EvRecovered, Server: "mem", Session: "host…aaaa",
				Detail: "mem recovered after 1m5s: the host opened a new session", Facts: health.Recovery{Strategy: "client_recovery", Took: 65 * time.Second}}},
		{`{"detail":"session on mem lost: Session not found","incident":true,"kind":"session_lost","log_file":"/logs/mem.log","log_fp":"9f3e77aa","log_offset":4096,"server":"mem","session":"host…aaaa","time":"2026-11-30T09:07:30.123456789Z"}`,
			Record{Time: t0.Add(7*time.Minute + 30*time.Second), Kind: health.EvSessionLost, Server: "mem", Session: "host…aaaa",
				Detail: "session on mem lost: Session not found", Facts: health.Loss{Incident: true},
				Log: health.LogPosition{File: "/logs/mem.log", Fingerprint: "9f3e77aa", Offset: 4096}}},
		{`{"about":"lost","detail":"notified: mem: session lost","kind":"notified","server":"mem","session":"","time":"2026-11-30T09:00:00.123456789Z","title":"mem: session lost"}`,
			Record{Time: t0, Kind: health.EvNotified, Server: "mem", Detail: "notified: mem: session lost", Facts: health.Notice{About: "lost"},
				Extra: map[string]any{"title": "mem: session lost"}}},
	}
	for _, tt := range tests {
		got, err := Decode([]byte(tt.line))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Decode(%s)\n got %+v\nwant %+v", tt.line, got, tt.want)
		}
	}
	for _, bad := range []string{`not json`, `{"kind":"x","time":"yesterday"}`, `{"time":"2026-11-30T09:00:00Z"}`} {
		if _, err := Decode([]byte(bad)); !errors.Is(err, ErrNotEvent) {
			t.Errorf("Decode(%s) = %v, want ErrNotEvent", bad, err)
		}
	}
}

// An extra field cannot pose as a typed one: the typed field owns its name.
func TestExtraCannotSpoofTypedFields(t *testing.T) {
	t.Parallel()
	ev := health.Event{Time: t0, Kind: health.EvSessionNew, Server: "mem", Facts: health.Opened{Client: "claude"},
		Extra: map[string]any{"incident": true, "client": "spoofed", "took_ms": 1, "mode": "stateful"}}
	line, err := Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(line)
	if err != nil {
		t.Fatal(err)
	}
	if got.Facts != (health.Opened{Client: "claude"}) || !reflect.DeepEqual(got.Extra, map[string]any{"mode": "stateful"}) {
		t.Fatalf("read back %+v from %s", got, line)
	}
}
