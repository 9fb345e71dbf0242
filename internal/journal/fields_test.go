package journal

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// TestEveryKindRoundTrips writes an event of every kind in the vocabulary,
// with each typed field its line carries set, and reads it back whole: a
// new kind or field that the journal cannot carry fails here.
func TestEveryKindRoundTrips(t *testing.T) {
	t.Parallel()
	for _, info := range health.Kinds() {
		for _, incident := range []bool{false, true} {
			ev := health.Event{Time: t0, Kind: info.Kind, Server: "mem", Session: "0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b",
				Detail: "what happened", Incident: incident, Extra: map[string]any{"pid": 42},
				Log: health.LogPosition{File: "/logs/mem.log", Fingerprint: "9f3e", Offset: 4096}}
			fillCarried(t, &ev)
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
			want.Extra = map[string]any{"pid": float64(42)}
			if !reflect.DeepEqual(health.Event(got), want) {
				t.Errorf("%s (incident %v) read back differs:\n got %+v\nwant %+v\nline %s", info.Kind, incident, got, want, line)
			}
		}
	}
}

// fillCarried sets every typed field ev's line carries to a value that is
// not zero, and leaves the others zero (they are not written).
func fillCarried(t *testing.T, ev *health.Event) {
	t.Helper()
	carries := ev.Carries()
	for f := health.Field(1); f != 0 && f <= carries; f <<= 1 {
		if !carries.Has(f) {
			continue
		}
		switch f {
		case health.FieldIncident, health.FieldLog:
			// set by the caller: they are written when set
		case health.FieldStrategy:
			ev.Strategy = "client_recovery"
		case health.FieldTook:
			ev.Took = 1500 * time.Millisecond
		case health.FieldClient:
			ev.Client = "claude"
		case health.FieldIdle:
			ev.Idle = 426 * time.Second
		case health.FieldExpiresIn:
			ev.ExpiresIn = 174 * time.Second
		case health.FieldAbout:
			ev.About = "lost"
		default:
			t.Fatalf("no sample value for field %b: add one", f)
		}
	}
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
				Detail: "mem recovered after 1m5s: the host opened a new session", Strategy: "client_recovery", Took: 65 * time.Second}},
		{`{"detail":"session on mem lost: Session not found","incident":true,"kind":"session_lost","log_file":"/logs/mem.log","log_fp":"9f3e77aa","log_offset":4096,"server":"mem","session":"host…aaaa","time":"2026-11-30T09:07:30.123456789Z"}`,
			Record{Time: t0.Add(7*time.Minute + 30*time.Second), Kind: health.EvSessionLost, Server: "mem", Session: "host…aaaa",
				Detail: "session on mem lost: Session not found", Incident: true,
				Log: health.LogPosition{File: "/logs/mem.log", Fingerprint: "9f3e77aa", Offset: 4096}}},
		{`{"about":"lost","detail":"notified: mem: session lost","kind":"notified","server":"mem","session":"","time":"2026-11-30T09:00:00.123456789Z","title":"mem: session lost"}`,
			Record{Time: t0, Kind: health.EvNotified, Server: "mem", Detail: "notified: mem: session lost", About: "lost",
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
	ev := health.Event{Time: t0, Kind: health.EvSessionNew, Server: "mem", Client: "claude",
		Extra: map[string]any{"incident": true, "client": "spoofed", "took_ms": 1, "mode": "stateful"}}
	line, err := Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(line)
	if err != nil {
		t.Fatal(err)
	}
	if got.Incident || got.Client != "claude" || got.Took != 0 || !reflect.DeepEqual(got.Extra, map[string]any{"mode": "stateful"}) {
		t.Fatalf("read back %+v from %s", got, line)
	}
}
