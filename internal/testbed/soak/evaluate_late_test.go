package soak

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// lateHost: a host started through warm's proxy at 8.1 s, after the kill
// at 8 s; the proxy answered its start at 8.11 s from the last-known
// server, and held its first call until the server was up (8.5 s); all
// three calls ran once each on warm.
func lateHost() Input {
	in := Input{ServerDown: map[string][]Span{"warm": {{From: at(8000), To: at(8500)}}}}
	h := LateHost{Server: "warm", Down: at(8000), Up: at(8500), Start: at(8100), Connected: at(8110)}
	for i := 1; i <= LateCalls; i++ {
		c := CallRecord{Server: "warm", Text: fmt.Sprintf("late warm 1 %d", i), Start: at(8110 + 500*(i-1)), End: at(8600 + 500*(i-1))}
		h.Calls = append(h.Calls, c)
		in.Executions = append(in.Executions, Execution{At: c.End.Add(-5 * time.Millisecond), Server: "warm", Session: idF, Text: c.Text})
	}
	in.Late = []LateHost{h}
	return in
}

// A late host's start and calls must work; only a kill of the proxy
// process or a later kill of its server excuses a failure. Waiting out
// the kill it started after excuses nothing.
func TestEvaluateLateHosts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		edit    func(*Input)
		want    string // a substring of the problems; "" for none
		figures LateFigures
	}{
		{"started down, answered at once, every call worked", func(*Input) {}, "",
			LateFigures{Hosts: 1, StartedDown: 1, Answered: 1, Connected: 1, Calls: 3, Worked: 3}},
		{"its start waited for the server", func(in *Input) { in.Late[0].Connected = at(8520) }, "",
			LateFigures{Hosts: 1, StartedDown: 1, Connected: 1, Calls: 3, Worked: 3}},
		{"a call failed while the server it started after was down", func(in *Input) {
			in.Late[0].Calls[0].Failure = "not up yet"
			in.Executions = in.Executions[1:]
		}, "hosts started while their server was down whose start or calls through the proxy failed",
			LateFigures{Hosts: 1, StartedDown: 1, Answered: 1, Connected: 1, Calls: 3, Worked: 2}},
		{"its start failed", func(in *Input) {
			in.Late[0].Failure, in.Late[0].Calls, in.Executions = "HTTP 502", nil, nil
		}, "its start failed", LateFigures{Hosts: 1}},
		{"a call cut by a kill of the proxy process", func(in *Input) {
			in.ProxyDown = []Span{{From: at(9200), To: at(9400)}}
			in.Late[0].Calls[2].Failure = "connection reset"
			in.Executions = in.Executions[:2]
		}, "", LateFigures{Hosts: 1, StartedDown: 1, Answered: 1, Connected: 1, Calls: 3, Worked: 2, Excused: 1}},
		{"a call cut by the server killed again", func(in *Input) {
			in.ServerDown["warm"] = append(in.ServerDown["warm"], Span{From: at(9300), To: at(9900)})
			in.Late[0].Calls[2].Failure = "session lost"
			in.Executions = in.Executions[:2]
		}, "", LateFigures{Hosts: 1, StartedDown: 1, Answered: 1, Connected: 1, Calls: 3, Worked: 2, Excused: 1}},
		{"a call answered as the echo ran twice", func(in *Input) {
			in.Executions = append(in.Executions, in.Executions[1])
		}, "executed 2 times", LateFigures{Hosts: 1, StartedDown: 1, Answered: 1, Connected: 1, Calls: 3, Worked: 2}},
		{"started after its server was up again", func(in *Input) {
			in.Late[0].Start, in.Late[0].Connected = at(8600), at(8610)
		}, "", LateFigures{Hosts: 1, Connected: 1, Calls: 3, Worked: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := lateHost()
			tc.edit(&in)
			var r Report
			r.lateHosts(in)
			r.lateProblems()
			got := r.LateHosts
			got.Failed = nil
			if !reflect.DeepEqual(got, tc.figures) {
				t.Errorf("figures %+v, want %+v", got, tc.figures)
			}
			problems := strings.Join(r.Problems, "\n")
			if tc.want == "" && problems != "" || tc.want != "" && !strings.Contains(problems, tc.want) {
				t.Errorf("problems %q; want %q", problems, tc.want)
			}
		})
	}
}
