package probe

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func sampleReport() Report {
	return Report{
		URL: "http://127.0.0.1:14242/mcp", Era: EraLegacy, Stateful: true,
		SupportedVersions: []string{"2025-11-25", "2025-06-18"}, ProtocolVersion: "2025-06-18",
		ServerName: "nmem", ServerVersion: "0.9",
		UnknownSession: "404 (spec)", GETStream: "405: no stream (spec)", Delete: "405", SessionLeft: true,
		Timings: map[string]time.Duration{StepPing: 1500 * time.Microsecond, StepDiscover: 12 * time.Millisecond, "zz": time.Second},
		Notes:   []string{"the server does not allow DELETE"},
	}
}

func TestReportJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(sampleReport())
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"url":"http://127.0.0.1:14242/mcp","era":"legacy","stateful":true,` +
		`"supported_versions":["2025-11-25","2025-06-18"],"protocol_version":"2025-06-18",` +
		`"server_name":"nmem","server_version":"0.9","unknown_session":"404 (spec)",` +
		`"get_stream":"405: no stream (spec)","get_404_quirk":false,"delete":"405","session_left":true,` +
		`"notes":["the server does not allow DELETE"],"timings_ms":{"discover":12,"ping":1,"zz":1000}}`
	if string(b) != want {
		t.Fatalf("JSON\n got %s\nwant %s", b, want)
	}
	b, err = json.Marshal(Report{Era: EraUnknown})
	if err != nil || !strings.Contains(string(b), `"supported_versions":[]`) || !strings.Contains(string(b), `"notes":[]`) || !strings.Contains(string(b), `"timings_ms":{}`) {
		t.Fatalf("empty report JSON %s (%v): lists must be [] not null", b, err)
	}
}

func TestReportText(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	if err := sampleReport().WriteText(&sb); err != nil {
		t.Fatal(err)
	}
	const want = `endpoint         http://127.0.0.1:14242/mcp
era              legacy (supported: 2025-11-25, 2025-06-18)
sessions         stateful (protocol 2025-06-18)
server           nmem 0.9
unknown session  404 (spec)
GET stream       405: no stream (spec)
DELETE           405
left behind      the probe session (it ends at the server's idle timeout)
timings          discover 12 ms, ping 1 ms, zz 1000 ms
notes:
  - the server does not allow DELETE
`
	if sb.String() != want {
		t.Fatalf("text\n got:\n%s\nwant:\n%s", sb.String(), want)
	}
}

func TestReportTextShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		r    Report
		want []string
	}{
		{Report{URL: "u", Era: EraBoth}, []string{"sessions         stateless: no session to lose", "left behind      nothing\n", "timings          -"}},
		{Report{URL: "u", Era: EraUnknown}, []string{"sessions         unknown", "unknown session  -"}},
		{Report{URL: "u", Era: EraLegacy, Stateful: true}, []string{"left behind      nothing (verified)", "protocol -"}},
	}
	for _, tt := range tests {
		var sb strings.Builder
		if err := tt.r.WriteText(&sb); err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(sb.String(), w) {
				t.Errorf("text for %+v lacks %q:\n%s", tt.r, w, sb.String())
			}
		}
	}
}
