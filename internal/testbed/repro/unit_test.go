package repro

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseCallLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line    string
		want    callResult
		wantErr bool
	}{
		{`OK {"content":[]}`, callResult{OK: true, Text: `{"content":[]}`}, false},
		{"ERR HTTP 404: Streamable HTTP error: Error POSTing to endpoint: session not found",
			callResult{Text: "HTTP 404: Streamable HTTP error: Error POSTing to endpoint: session not found", Status: 404}, false},
		{"ERR Not connected", callResult{Text: "Not connected"}, false},
		{"ERR HTTP 4040: odd", callResult{Text: "HTTP 4040: odd"}, false},
		{"ERR HTTP 999: odd", callResult{Text: "HTTP 999: odd"}, false},
		{"READY", callResult{}, true},
		{"OK", callResult{}, true},
		{"", callResult{}, true},
	}
	for _, tc := range tests {
		got, err := parseCallLine(tc.line)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("parseCallLine(%q) = %+v, %v; want %+v, error %v", tc.line, got, err, tc.want, tc.wantErr)
		}
		if err != nil && !errors.Is(err, ErrHost) {
			t.Errorf("parseCallLine(%q): error %v does not wrap ErrHost", tc.line, err)
		}
	}
}

func FuzzParseCallLine(f *testing.F) {
	for _, s := range []string{"OK {}", "ERR HTTP 404: x", "ERR x", "BYE", "", "ERR HTTP 500: "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := parseCallLine(line)
		if err != nil {
			return
		}
		if r.OK != strings.HasPrefix(line, "OK ") || (r.Status != 0 && (r.OK || r.Status < 100 || r.Status > 599)) {
			t.Fatalf("parseCallLine(%q) = %+v", line, r)
		}
	})
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	ms := func(v ...int) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	tests := []struct {
		in               []time.Duration
		median, min, max time.Duration
	}{
		{nil, 0, 0, 0},
		{ms(700), 700 * time.Millisecond, 700 * time.Millisecond, 700 * time.Millisecond},
		{ms(900, 100, 500), 500 * time.Millisecond, 100 * time.Millisecond, 900 * time.Millisecond},
		{ms(400, 100, 200, 300), 250 * time.Millisecond, 100 * time.Millisecond, 400 * time.Millisecond},
	}
	for _, tc := range tests {
		in := slices.Clone(tc.in)
		med, lo, hi := summarize(tc.in)
		if med != tc.median || lo != tc.min || hi != tc.max {
			t.Errorf("summarize(%v) = %v, %v, %v; want %v, %v, %v", tc.in, med, lo, hi, tc.median, tc.min, tc.max)
		}
		if !slices.Equal(in, tc.in) {
			t.Errorf("summarize reordered its input: %v", tc.in)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    Options
		ok   bool
	}{
		{"zero", Options{}, true},
		{"trigger patched", Options{Patched: true, Trigger: true}, true},
		{"trigger unpatched", Options{Trigger: true}, false},
		{"server", Options{Server: "rust"}, false},
		{"client", Options{Client: "other"}, false},
		{"loss", Options{Loss: "crash"}, false},
		{"negative", Options{RecoverWithin: -time.Second}, false},
		{"v1 patch", Options{Patched: true, NoRetry: true}, true},
		{"no-retry unpatched", Options{NoRetry: true}, false},
		{"negative call timeout", Options{ToolCallTimeout: -time.Second}, false},
	}
	for _, tc := range tests {
		o, err := tc.o.withDefaults()
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok %v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBadOptions) {
			t.Errorf("%s: %v does not wrap ErrBadOptions", tc.name, err)
		}
		if err == nil && (o.Server == "" || o.Client == "" || o.Loss == "" || o.tool() != "mcp__nowledge-mem__echo") {
			t.Errorf("%s: defaults not filled: %+v", tc.name, o)
		}
	}
}

func TestBenchRejectsNoRuns(t *testing.T) {
	t.Parallel()
	if _, err := Bench(t.Context(), Options{}, 0); !errors.Is(err, ErrBadOptions) {
		t.Fatalf("Bench with 0 runs: %v, want ErrBadOptions", err)
	}
}

func TestWithHome(t *testing.T) {
	t.Parallel()
	got := withHome([]string{"PATH=/bin", "HOME=/root", "HOMEX=1"}, "/tmp/h")
	want := []string{"PATH=/bin", "HOMEX=1", "HOME=/tmp/h"}
	if !slices.Equal(got, want) {
		t.Fatalf("withHome = %q, want %q", got, want)
	}
}

func TestParseBeacon(t *testing.T) {
	t.Parallel()
	good := `{"version":1,"pid":42,"updated":"2026-01-01T00:00:00.000Z","servers":[` +
		`{"name":"a","url":"http://127.0.0.1:1/mcp","session_id":null,"state":"reconnecting",` +
		`"connected_since":null,"last_request":null,"updated":"2026-01-01T00:00:00.000Z"}]}`
	bc, err := parseBeacon([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	s, ok := bc.Server("a")
	if !ok || bc.PID != 42 || s.State != "reconnecting" || s.SessionID != "" {
		t.Fatalf("parsed %+v", bc)
	}
	if _, ok := bc.Server("b"); ok {
		t.Fatal("found a server that is not there")
	}
	for _, bad := range []string{`{"version":2,"servers":[]}`, `{"pid":1}`, `[`, ``} {
		if _, err := parseBeacon([]byte(bad)); err == nil {
			t.Errorf("parseBeacon(%q) accepted it", bad)
		}
	}
}

func FuzzParseBeacon(f *testing.F) {
	f.Add([]byte(`{"version":1,"pid":1,"servers":[{"name":"a","session_id":"x"}]}`))
	f.Add([]byte(`{"version":1,"servers":null}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		bc, err := parseBeacon(b)
		if err == nil && bc.Version != 1 {
			t.Fatalf("accepted version %d", bc.Version)
		}
	})
}
