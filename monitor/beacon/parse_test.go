package beacon

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// sampleID is the session id in testdata/module_js_v1.json.
const sampleID = "3f6c1a9e-77b2-4d0e-9a51-2c8e4b7d0f13"

// TestParseModuleJS reads a beacon written by the payload's own
// __mcpWatchdogWriteBeacon (run under node, see testdata/README.md): every
// field the client writes, in each of its states, comes through.
func TestParseModuleJS(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/module_js_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	want := Client{PID: 27576, Updated: at("2026-12-01T05:21:02.197Z"), Servers: []Server{
		{Name: "nowledge-mem", URL: "http://127.0.0.1:14242/mcp", SessionID: sampleID, State: Connected,
			ConnectedSince: at("2026-12-01T04:21:02.197Z"), LastRequest: at("2026-12-01T05:21:02.159Z"),
			Updated: at("2026-12-01T05:21:02.197Z")},
		{Name: "notes", URL: "http://127.0.0.1:8808/mcp", State: Reconnecting, Updated: at("2026-12-01T05:21:02.181Z")},
		{Name: "stateless", URL: "http://127.0.0.1:9000/mcp", State: Connected,
			ConnectedSince: at("2026-12-01T05:21:02.197Z"), Updated: at("2026-12-01T05:21:02.197Z")},
		{Name: "off", URL: "http://127.0.0.1:9001/mcp", State: Down, Updated: at("2026-12-01T05:21:02.197Z")},
	}}
	if !c.equal(want) {
		t.Fatalf("parsed\n%+v\nwant\n%+v", c, want)
	}
	if s, ok := c.Server("nowledge-mem"); !ok || s.SessionID != sampleID {
		t.Fatalf("Server(nowledge-mem) = %v, %v", s, ok)
	}
	if _, ok := c.Server("absent"); ok {
		t.Fatal("Server(absent) found")
	}
}

// beaconJSON is a valid one-server beacon with the given server fields
// spliced in raw (JSON text), for cases that change one thing.
func beaconJSON(top, server string) string {
	if server == "" {
		server = `"name":"mem","url":"http://h/mcp","session_id":"` + sampleID + `","state":"connected"`
	}
	if top == "" {
		top = `"version":1,"pid":42,"updated":"2026-12-01T10:00:00.000Z"`
	}
	return `{` + top + `,"servers":[{` + server + `}]}`
}

// Long: a table of cases, one per rule of the format.
func TestParseRejects(t *testing.T) {
	t.Parallel()
	srv := func(extra string) string {
		return `"name":"mem","url":"http://h/mcp","state":"connected",` + extra
	}
	tests := []struct {
		name string
		data string
		want error
		says string // the error names this
	}{
		{"version 2", `{"version":2,"pid":42,"servers":"another shape"}`, ErrUnsupportedVersion, "version 2"},
		{"version as a string", beaconJSON(`"version":"1","pid":42`, ""), ErrUnsupportedVersion, `version "1"`},
		{"version with a bidi override", "{\"version\":\"\u202e1\"}", ErrUnsupportedVersion, `\u202e`},
		{"no version", beaconJSON(`"pid":42`, ""), ErrMalformed, "no version"},
		{"null version", beaconJSON(`"version":null,"pid":42`, ""), ErrMalformed, "no version"},
		{"not JSON", `{"version":1,`, ErrMalformed, ""},
		{"not an object", `[1,2]`, ErrMalformed, ""},
		{"too large", `{"version":1,"pid":42,"x":"` + strings.Repeat("a", MaxSize) + `"}`, ErrMalformed, "bytes"},
		{"no pid", beaconJSON(`"version":1`, ""), ErrMalformed, "pid"},
		{"pid zero", beaconJSON(`"version":1,"pid":0`, ""), ErrMalformed, "pid"},
		{"pid over int32", beaconJSON(`"version":1,"pid":4294967296`, ""), ErrMalformed, "pid"},
		{"pid fractional", beaconJSON(`"version":1,"pid":4.5`, ""), ErrMalformed, ""},
		{"bad top-level time", beaconJSON(`"version":1,"pid":42,"updated":"yesterday"`, ""), ErrMalformed, "updated"},
		{"too many servers", `{"version":1,"pid":42,"servers":[` + strings.Repeat(`{"state":"down"},`, MaxServers) + `{"state":"down"}]}`, ErrMalformed, "servers"},
		{"servers not a list", beaconJSON(`"version":1,"pid":42,"servers":{}`, ""), ErrMalformed, ""},
		{"control character in the id", beaconJSON("", srv(`"session_id":"abc\u0007defghijkl"`)), ErrMalformed, "session_id"},
		{"space in the id", beaconJSON("", srv(`"session_id":"abc defghijkl"`)), ErrMalformed, "session_id"},
		{"non-ASCII id", beaconJSON("", srv(`"session_id":"abcé"`)), ErrMalformed, "session_id"},
		{"over-long id", beaconJSON("", srv(`"session_id":"`+strings.Repeat("a", maxID+1)+`"`)), ErrMalformed, "session_id"},
		{"id a number", beaconJSON("", srv(`"session_id":12`)), ErrMalformed, "session_id"},
		{"newline in a name", beaconJSON("", `"name":"a\nb","state":"down"`), ErrMalformed, "name"},
		{"bidi override in a URL", beaconJSON("", "\"url\":\"http://\u202eh\",\"state\":\"down\""), ErrMalformed, "url"},
		{"unknown state", beaconJSON("", `"name":"mem","state":"sleeping"`), ErrMalformed, `"sleeping"`},
		{"no state", beaconJSON("", `"name":"mem"`), ErrMalformed, "state"},
		{"bad server time", beaconJSON("", srv(`"connected_since":"12:00"`)), ErrMalformed, "connected_since"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tc.data))
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err %q does not say %q", err, tc.says)
			}
			if len(err.Error()) > 400 {
				t.Fatalf("err is %d bytes: a hostile file could flood the log", len(err.Error()))
			}
		})
	}
}

// TestParseTolerates: the fields the client writes as null, and fields a
// later version-1 writer might add, do not make a beacon unreadable.
func TestParseTolerates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		want Server
	}{
		{"nulls", beaconJSON("", `"name":null,"url":null,"session_id":null,"state":"down","connected_since":null,"last_request":null,"updated":null`),
			Server{State: Down}},
		{"missing fields", beaconJSON("", `"state":"reconnecting"`), Server{State: Reconnecting}},
		{"empty times", beaconJSON("", `"name":"mem","state":"down","connected_since":""`), Server{Name: "mem", State: Down}},
		{"unknown fields", beaconJSON(`"version":1,"pid":42,"host":"x"`, `"name":"mem","state":"down","extra":[1]`), Server{Name: "mem", State: Down}},
		{"offset time", beaconJSON("", `"state":"down","updated":"2026-12-01T11:00:00+01:00"`),
			Server{State: Down, Updated: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}},
		{"unicode name", beaconJSON("", `"name":"mémoire 記憶","state":"down"`), Server{Name: "mémoire 記憶", State: Down}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := Parse([]byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if c.PID != 42 || len(c.Servers) != 1 || !(Client{Servers: c.Servers}).equal(Client{Servers: []Server{tc.want}}) {
				t.Fatalf("parsed %+v, want pid 42 and %+v", c, tc.want)
			}
		})
	}
	c, err := Parse([]byte(`{"version":1,"pid":7,"updated":null,"servers":null}`))
	if err != nil || c.PID != 7 || !c.Updated.IsZero() || len(c.Servers) != 0 {
		t.Fatalf("null servers and time: %+v, %v", c, err)
	}
}

// TestServerMasks: printing or logging a client cannot leak the id.
func TestServerMasks(t *testing.T) {
	t.Parallel()
	c := Client{PID: 1, Servers: []Server{{Name: "mem", SessionID: sampleID, State: Connected}}}
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v %+v", c.Servers[0], c), c.Servers[0].LogValue().String()} {
		if strings.Contains(s, sampleID) || !strings.Contains(s, "3f6c…0f13") {
			t.Errorf("%q: want the id masked as 3f6c…0f13", s)
		}
	}
}
