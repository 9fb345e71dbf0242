package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	idA = "0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b"
	idB = "7c6b5a49-3827-4165-8f4e-3d2c1b0a9f8e"
)

var (
	t0930 = time.Date(2025, 11, 29, 9, 30, 0, 0, time.UTC) // 1764408600
	t0800 = time.Date(2025, 11, 29, 8, 0, 0, 0, time.UTC)  // 1764403200
)

func unix(s int64) time.Time { return time.Unix(s, 0).UTC() }

// Long: a table of 19 cases.
func TestParseShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file    string
		want    []Session
		skipped int
	}{
		{"map_keyed.json", []Session{
			{ID: idA, Client: "dsh-mcp-client", LastActivity: t0930, Created: t0800},
			{ID: idB, Client: "claude-code", LastActivity: t0930, Created: t0800},
		}, 0},
		{"list.json", []Session{
			{ID: idA, Client: "dsh-mcp-client", LastActivity: t0930, Created: t0800},
			{ID: idB, Client: "claude-code", LastActivity: t0930, Created: t0800},
		}, 0},
		{"sessions_list.json", []Session{
			{ID: idA, Client: "dsh-mcp-client", LastActivity: t0930, Created: t0800},
		}, 0},
		{"sessions_map.json", []Session{
			{ID: idA, Client: "dsh-mcp-client", LastActivity: t0930, Created: t0800.Add(123456 * time.Microsecond)},
		}, 0},
		{"data_sessions.json", []Session{
			{ID: idA, Client: "dsh-mcp-client", LastActivity: t0930, Created: t0800},
		}, 0},
		{"items.json", []Session{{ID: idA, Client: "dsh-mcp-client", LastActivity: t0930}}, 0},
		{"empty_object.json", nil, 0},
		{"empty_list.json", nil, 0},
		{"sessions_empty.json", nil, 0},
		{"sessions_empty_map.json", nil, 0},
		{"null.json", nil, 0},
		{"id_spellings.json", []Session{
			{ID: "id-aaaaaaaaaaaa"},
			{ID: "mcpSessionId-eeeeeeeeeeee"},
			{ID: "mcp_session_id-dddddddddddd"},
			{ID: "sessionId-cccccccccccc"},
			{ID: "session_id-bbbbbbbbbbbb"},
		}, 6},
		{"client_spellings.json", []Session{
			{ID: "s1-aaaaaaaaaaaa", Client: "by-client"},
			{ID: "s2-aaaaaaaaaaaa", Client: "by-client_name"},
			{ID: "s3-aaaaaaaaaaaa", Client: "by-clientName"},
			{ID: "s4-aaaaaaaaaaaa", Client: "by-clientInfo.name"},
			{ID: "s5-aaaaaaaaaaaa", Client: "by-client_info.name"},
			{ID: "s6-aaaaaaaaaaaa", Client: "by-client.name"},
			{ID: "s7-aaaaaaaaaaaa"},
		}, 0},
		{"activity_spellings.json", []Session{
			{ID: "a01-aaaaaaaaaaaa", LastActivity: unix(1764408601)},
			{ID: "a02-aaaaaaaaaaaa", LastActivity: unix(1764408602)},
			{ID: "a03-aaaaaaaaaaaa", LastActivity: unix(1764408603)},
			{ID: "a04-aaaaaaaaaaaa", LastActivity: unix(1764408604)},
			{ID: "a05-aaaaaaaaaaaa", LastActivity: unix(1764408605)},
			{ID: "a06-aaaaaaaaaaaa", LastActivity: unix(1764408606)},
			{ID: "a07-aaaaaaaaaaaa", LastActivity: unix(1764408607)},
			{ID: "a08-aaaaaaaaaaaa", LastActivity: unix(1764408608)},
			{ID: "a09-aaaaaaaaaaaa", LastActivity: unix(1764408609)},
			{ID: "a10-aaaaaaaaaaaa", LastActivity: unix(1764408610)},
			{ID: "a11-aaaaaaaaaaaa", LastActivity: unix(1764408611)},
			{ID: "c01-aaaaaaaaaaaa", Created: unix(1764403201)},
			{ID: "c02-aaaaaaaaaaaa", Created: unix(1764403202)},
			{ID: "c03-aaaaaaaaaaaa", Created: unix(1764403203)},
			{ID: "c04-aaaaaaaaaaaa", Created: unix(1764403204)},
		}, 0},
		{"map_row_ids.json", []Session{
			{ID: idA, Client: "keyed, generic id is a row number"},
			{ID: idB, Client: "explicit session_id wins"},
		}, 0},
		{"map_with_metadata.json", []Session{{ID: idA, Client: "dsh-mcp-client", LastActivity: t0930}}, 0},
		{"duplicates.json", []Session{
			{ID: "dup-aaaaaaaaaaaa", Client: "newer", LastActivity: t0930},
			{ID: "one-aaaaaaaaaaaa", Client: "single"},
		}, 2},
		{"numeric_id.json", []Session{{ID: "123456789012345678", Client: "numbers as ids"}}, 0},
		{"bom.json", []Session{{ID: "bom-aaaaaaaaaaaa"}}, 0},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.file] = true
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			got, skipped, err := Parse(readFixture(t, "shapes", tt.file))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if skipped != tt.skipped {
				t.Errorf("skipped = %d, want %d", skipped, tt.skipped)
			}
			assertSessions(t, got, tt.want)
		})
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "shapes", "*.json"))
	for _, f := range files {
		if !covered[filepath.Base(f)] {
			t.Errorf("fixture %s has no expectation in this table", f)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want error
		msg  string // part of the message that says what is wrong
	}{
		{"empty.json", ErrNotJSON, "file is empty (0 bytes)"},
		{"whitespace.json", ErrNotJSON, "file is empty"},
		{"truncated.json", ErrNotJSON, "ends early after 120 bytes"},
		{"html.json", ErrNotJSON, "invalid character '<' looking for beginning of value at byte 1"},
		{"two_values.json", ErrNotJSON, "data after the JSON value"},
		{"trailing_comma.json", ErrNotJSON, "invalid character ']'"},
		{"string.json", ErrUnknownShape, "top level is a string, want an object or a list"},
		{"number.json", ErrUnknownShape, "top level is a number"},
		{"single_session.json", ErrUnknownShape, `looks like one session (it has "id")`},
		{"scalars_only.json", ErrUnknownShape, "has 2 keys but none holds a session object"},
		{"sessions_string.json", ErrUnknownShape, `"sessions" is a string`},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.file] = true
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			got, skipped, err := Parse(readFixture(t, "bad", tt.file))
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %q, want it to contain %q", err, tt.msg)
			}
			if got != nil || skipped != 0 {
				t.Errorf("got %d sessions, %d skipped with an error; want none", len(got), skipped)
			}
			if strings.Contains(err.Error(), idA) {
				t.Errorf("error shows a session id: %q", err)
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "bad", "*.json"))
	for _, f := range files {
		if !covered[filepath.Base(f)] {
			t.Errorf("fixture %s has no expectation in this table", f)
		}
	}
}

func TestParseTimeFormats(t *testing.T) {
	t.Parallel()
	ms := time.Date(2025, 11, 29, 9, 30, 0, 123_000_000, time.UTC)
	ns := time.Date(2025, 11, 29, 9, 30, 0, 123_456_789, time.UTC)
	tests := []struct {
		name string
		json string // the value of last_activity
		want time.Time
	}{
		{"rfc3339 Z", `"2025-11-29T09:30:00Z"`, t0930},
		{"rfc3339 offset", `"2025-11-29T11:30:00+02:00"`, t0930},
		{"rfc3339 millis", `"2025-11-29T09:30:00.123Z"`, ms},
		{"rfc3339 nanos", `"2025-11-29T09:30:00.123456789Z"`, ns},
		{"rfc3339 lower-case t z", `"2025-11-29t09:30:00z"`, t0930},
		{"space separator", `"2025-11-29 09:30:00Z"`, t0930},
		{"no zone is UTC", `"2025-11-29T09:30:00.123"`, ms},
		{"unix seconds", `1764408600`, t0930},
		{"unix seconds string", `"1764408600"`, t0930},
		{"unix seconds fraction", `1764408600.123`, ms},
		{"unix millis", `1764408600123`, ms},
		{"unix millis string", `"1764408600123"`, ms},
		{"unix millis exponent", `1.7644086e12`, t0930},
		{"unix micros", `1764408600123456`, time.Date(2025, 11, 29, 9, 30, 0, 123_456_000, time.UTC)},
		{"unix nanos", `1764408600123456789`, ns},
		{"unix nanos string", `"1764408600123456789"`, ns},
		{"seconds edge 1e11-1", `99999999999`, unix(99999999999)},
		{"millis edge 1e11", `100000000000`, time.UnixMilli(100000000000).UTC()},
		{"zero is unknown", `0`, time.Time{}},
		{"negative is unknown", `-5`, time.Time{}},
		{"huge float is unknown", `1e300`, time.Time{}},
		{"beyond int64 nanos", `99999999999999999999`, time.Date(5138, 11, 16, 9, 46, 40, 0, time.UTC)},
		{"beyond year 9999", `999999999999999999999999`, time.Time{}},
		{"garbage text", `"yesterday"`, time.Time{}},
		{"empty text", `""`, time.Time{}},
		{"boolean", `true`, time.Time{}},
		{"object", `{"secs": 1764408600}`, time.Time{}},
		{"null", `null`, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := `[{"id": "time-aaaaaaaaaaaa", "last_activity": ` + tt.json + `, "created_at": ` + tt.json + `}]`
			got, _, err := Parse([]byte(data))
			if err != nil {
				t.Fatalf("Parse(%s): %v", data, err)
			}
			if len(got) != 1 {
				t.Fatalf("got %d sessions, want 1", len(got))
			}
			s := got[0]
			if !s.LastActivity.Equal(tt.want) || !s.Created.Equal(tt.want) {
				t.Errorf("LastActivity = %v, Created = %v, want %v", s.LastActivity, s.Created, tt.want)
			}
			if !s.LastActivity.IsZero() && s.LastActivity.Location() != time.UTC {
				t.Errorf("LastActivity in %v, want UTC", s.LastActivity.Location())
			}
		})
	}
}

func readFixture(t *testing.T, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// assertSessions compares field by field; ids are test values, safe to print.
func assertSessions(t *testing.T, got, want []Session) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d sessions, want %d: %s", len(got), len(want), describe(got))
		return
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.Client != w.Client || !g.LastActivity.Equal(w.LastActivity) || !g.Created.Equal(w.Created) {
			t.Errorf("session %d:\n got  %s\n want %s", i, describe([]Session{g}), describe([]Session{w}))
		}
	}
}

func describe(list []Session) string {
	var b strings.Builder
	for _, s := range list {
		b.WriteString("{" + s.ID + " " + s.Client + " last=" + s.LastActivity.Format(time.RFC3339Nano) +
			" created=" + s.Created.Format(time.RFC3339Nano) + "} ")
	}
	return b.String()
}
