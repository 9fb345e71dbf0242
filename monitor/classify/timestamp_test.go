package classify

import (
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	t.Parallel()
	loc := time.FixedZone("test", 2*3600)
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	tests := []struct {
		name string
		line string
		want time.Time // zero: none
	}{
		{"rfc3339 Z ms", "2025-11-29T08:00:01.532Z info x", utc(2025, 11, 29, 8, 0, 1, 532e6)},
		{"rfc3339 µs", "2025-11-29T08:00:00.104988Z  INFO x", utc(2025, 11, 29, 8, 0, 0, 104988e3)},
		{"offset colon", "2025-11-30T10:00:00+01:00 msg", time.Date(2025, 11, 30, 9, 0, 0, 0, time.UTC)},
		{"offset no colon", "2025-11-30T10:00:00.5-0130 msg", time.Date(2025, 11, 30, 11, 30, 0, 5e8, time.UTC)},
		{"space, no zone", "2025-11-29 08:00:00 [nowledge-mem] x", time.Date(2025, 11, 29, 8, 0, 0, 0, loc)},
		{"python comma fraction", "2025-11-29 10:00:00,123 WARNING x", time.Date(2025, 11, 29, 10, 0, 0, 123e6, loc)},
		{"space UTC", "2025-11-29 10:00:00 UTC x", utc(2025, 11, 29, 10, 0, 0, 0)},
		{"space offset", "2025-11-29 10:00:00 +0000 x", utc(2025, 11, 29, 10, 0, 0, 0)},
		{"go log", "2025/11/29 15:04:05 http: x", time.Date(2025, 11, 29, 15, 4, 5, 0, loc)},
		{"go log micro", "2025/11/29 15:04:05.000123 x", time.Date(2025, 11, 29, 15, 4, 5, 123000, loc)},
		{"bracketed", "[2025-11-29 08:30:00] POST /mcp", time.Date(2025, 11, 29, 8, 30, 0, 0, loc)},
		{"ansi", "\x1b[2m2025-11-29T20:16:02.690001Z\x1b[0m WARN", utc(2025, 11, 29, 20, 16, 2, 690001e3)},
		{"nanoseconds cut", "2025-11-29T08:00:00.1234567891Z", utc(2025, 11, 29, 8, 0, 0, 123456789)},
		{"json time rfc3339", `{"level":"info","time":"2025-11-29T08:00:00.5Z","msg":"x"}`, utc(2025, 11, 29, 8, 0, 0, 5e8)},
		{"json timestamp", `{"timestamp":"2025-11-30T09:00:00.000001Z","level":"INFO"}`, utc(2025, 11, 30, 9, 0, 0, 1000)},
		{"json @timestamp", `{"@timestamp":"2025-11-30T09:00:00Z"}`, utc(2025, 11, 30, 9, 0, 0, 0)},
		{"json ts seconds float", `{"level":"warn","ts":1764403200.25,"msg":"x"}`, utc(2025, 11, 29, 8, 0, 0, 25e7)},
		{"json time ms", `{"level":30,"time":1764405240000,"msg":"x"}`, utc(2025, 11, 29, 8, 34, 0, 0)},
		{"json ts µs", `{"ts":1764403200000001}`, utc(2025, 11, 29, 8, 0, 0, 1000)},
		{"json ts ns", `{"ts":1764403200000000007}`, utc(2025, 11, 29, 8, 0, 0, 7)},
		{"json ts quoted number", `{"ts":"1764403200"}`, utc(2025, 11, 29, 8, 0, 0, 0)},
		{"logfmt time", `level=info time=2025-11-29T08:00:00Z msg=x`, utc(2025, 11, 29, 8, 0, 0, 0)},
		{"logfmt ts seconds", `ts=1764403200 level=info`, utc(2025, 11, 29, 8, 0, 0, 0)},
		{"json spaced", `{"time" : "2025-11-29T08:00:00Z"}`, utc(2025, 11, 29, 8, 0, 0, 0)},
		// None.
		{"none", "info [dsh] starting", time.Time{}},
		{"month 13", "2025-13-01T00:00:00Z x", time.Time{}},
		{"31 April", "2025-04-31 10:00:00 x", time.Time{}},
		{"hour 24", "2025-04-30 24:00:00 x", time.Time{}},
		{"date only", "2025-04-30 started", time.Time{}},
		{"small ts", `{"ts":5}`, time.Time{}},
		{"ts inside a word", "prompt_tokens=1764403200 x", time.Time{}},
		{"not a number", `{"time":"soon"}`, time.Time{}},
		{"float junk", `{"ts":1e10}`, time.Time{}},
	}
	for _, tc := range tests {
		got, ok := ParseTime([]byte(tc.line), loc)
		if ok != !tc.want.IsZero() || !got.Equal(tc.want) {
			t.Errorf("%s: ParseTime(%q) = %v, %v; want %v", tc.name, tc.line, got, ok, tc.want)
		}
	}
}

func TestParseTimeNilLocation(t *testing.T) {
	t.Parallel()
	got, ok := ParseTime([]byte("2025-11-29 08:00:00 x"), nil)
	if want := time.Date(2025, 11, 29, 8, 0, 0, 0, time.Local); !ok || !got.Equal(want) {
		t.Errorf("got %v %v, want %v", got, ok, want)
	}
}
