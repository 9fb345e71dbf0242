package health

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

var stdioT0 = time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)

// stdioAt is a report of kind by supervisor pid of opencode's filesystem
// server, seen at t0+ms.
func stdioAt(kind StdioKind, pid int, ms int, r StdioReport) StdioSeen {
	r.Kind, r.PID, r.At = kind, pid, stdioT0.Add(time.Duration(ms)*time.Millisecond)
	if r.Host == "" {
		r.Host = "opencode"
	}
	return StdioSeen{Server: "filesystem", Report: r}
}

// stdioCase is a supervisor's reports, and the events, words and status
// the model has for them.
type stdioCase struct {
	name    string
	reports []StdioSeen
	kinds   []EventKind
	detail  string // of the last event
	state   State
	status  StdioStatus
}

// stdioCases are the runs of a stdio server the model is tested on.
//
// Long: a table of cases, one case per shape.
func stdioCases() []stdioCase {
	return []stdioCase{
		{"a start is no news", []StdioSeen{stdioAt(StdioStarted, 7, 0, StdioReport{Child: 70, Starts: 1})},
			nil, "", Healthy, StdioStatus{Host: "opencode", Supervisors: 1, PID: 70, Starts: 1}},
		{"crash, failed call, restart: one incident told by its restart",
			[]StdioSeen{
				stdioAt(StdioStarted, 7, 0, StdioReport{Child: 70, Starts: 1}),
				stdioAt(StdioExited, 7, 1000, StdioReport{Exit: "signal: killed", Stderr: "fatal: out of memory"}),
				stdioAt(StdioCallFailed, 7, 1001, StdioReport{Method: "tools/call"}),
				stdioAt(StdioRestarted, 7, 1120, StdioReport{Child: 71, Starts: 2, Took: 120 * time.Millisecond}),
			},
			[]EventKind{EvStdioExited, EvStdioCallFailed, EvStdioRestarted},
			"opencode: filesystem crashed (signal: killed); restarted in 120 ms, the call in flight (tools/call) failed", Healthy,
			StdioStatus{Host: "opencode", Supervisors: 1, PID: 71, Starts: 2, Exits: 1, Restarts: 1, FailedCalls: 1,
				LastExit: "signal: killed", LastStderr: "fatal: out of memory", LastExitTime: "2026-12-07T09:00:01Z"}},
		{"while it restarts the server is healing",
			[]StdioSeen{stdioAt(StdioExited, 7, 0, StdioReport{Exit: "exit status 1"})},
			[]EventKind{EvStdioExited}, "opencode: filesystem crashed (exit status 1); the watchdog starts it again", Healing,
			StdioStatus{Host: "opencode", Supervisors: 1, Exits: 1, LastExit: "exit status 1", LastExitTime: "2026-12-07T09:00:00Z"}},
		{"a crash loop: given up, lost",
			[]StdioSeen{
				stdioAt(StdioExited, 7, 0, StdioReport{Exit: "exit status 2"}),
				stdioAt(StdioRestarted, 7, 5, StdioReport{Starts: 2}),
				stdioAt(StdioExited, 7, 61000, StdioReport{Exit: "exit status 2"}),
				stdioAt(StdioRestarted, 7, 61005, StdioReport{Starts: 3}),
				stdioAt(StdioExited, 7, 62000, StdioReport{Exit: "exit status 2", Stderr: "bad config"}),
				stdioAt(StdioGaveUp, 7, 62010, StdioReport{}),
			},
			[]EventKind{EvStdioExited, EvStdioRestarted, EvStdioExited, EvStdioRestarted, EvStdioExited, EvStdioGaveUp},
			"opencode: filesystem keeps crashing (2 exits within 1m0s); the watchdog stopped restarting it and the host's calls to it fail: bad config", Lost,
			StdioStatus{Host: "opencode", Supervisors: 1, Starts: 3, Exits: 3, Restarts: 2, LastExit: "exit status 2", LastStderr: "bad config",
				LastExitTime: "2026-12-07T09:01:02Z"}},
		{"a hang: down until restarted",
			[]StdioSeen{stdioAt(StdioHung, 7, 0, StdioReport{})},
			[]EventKind{EvStdioHung}, "opencode: filesystem does not answer: a request and a ping went unanswered", Down,
			StdioStatus{Host: "opencode", Supervisors: 1}},
		{"a hang in the supervisor's words, which say what it does about it",
			[]StdioSeen{withDetail(stdioAt(StdioHung, 7, 0, StdioReport{Method: "tools/call"}), "opencode: filesystem hangs; it is left running")},
			[]EventKind{EvStdioHung}, "opencode: filesystem hangs; it is left running", Down,
			StdioStatus{Host: "opencode", Supervisors: 1}},
		{"two supervisors are one server, counts summed, the worst state",
			[]StdioSeen{
				stdioAt(StdioStarted, 7, 0, StdioReport{Child: 70, Starts: 1}),
				stdioAt(StdioStarted, 8, 10, StdioReport{Child: 80, Starts: 1}),
				stdioAt(StdioExited, 8, 20, StdioReport{Exit: "signal: killed"}),
			},
			[]EventKind{EvStdioExited}, "", Healing,
			StdioStatus{Host: "opencode", Supervisors: 2, PID: 80, PIDs: []int{70, 80}, Starts: 2, Exits: 1, LastExit: "signal: killed",
				LastExitTime: "2026-12-07T09:00:00Z"}},
		{"a supervisor whose socket went is forgotten",
			[]StdioSeen{stdioAt(StdioStarted, 7, 0, StdioReport{Child: 70, Starts: 1}), stdioAt(StdioUnlinked, 7, 5, StdioReport{})},
			nil, "", Unknown, StdioStatus{Host: "opencode"}},
	}
}

// TestStdiosTellWhatTheHostSaw feeds the model a supervisor's reports and
// checks the events, their words and the server's status after them.
func TestStdiosTellWhatTheHostSaw(t *testing.T) {
	t.Parallel()
	for _, tt := range stdioCases() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := NewStdios()
			var kinds []EventKind
			var last Event
			for _, r := range tt.reports {
				for _, ev := range m.Apply(r, stdioT0.Add(time.Hour)) {
					kinds, last = append(kinds, ev.Kind), ev
					if ev.Server != "filesystem" || ev.Extra["host"] != "opencode" || ev.Time != r.Report.At {
						t.Errorf("%s: server %q, host %v, time %v; want filesystem, opencode, %v", ev.Kind, ev.Server, ev.Extra["host"], ev.Time, r.Report.At)
					}
				}
			}
			if !equalKinds(kinds, tt.kinds) {
				t.Errorf("kinds %v, want %v", kinds, tt.kinds)
			}
			if tt.detail != "" && last.Detail != tt.detail {
				t.Errorf("detail\n got %q\nwant %q", last.Detail, tt.detail)
			}
			st := m.Status()
			if len(st) != 1 {
				t.Fatalf("status lists %d servers, want 1: %+v", len(st), st)
			}
			if st[0].State != tt.state || st[0].Transport != TransportStdio || st[0].Name != "filesystem" {
				t.Errorf("status %s %s %s, want filesystem stdio %s", st[0].Name, st[0].Transport, st[0].State, tt.state)
			}
			if got := *st[0].Stdio; !equalStdio(got, tt.status) {
				t.Errorf("stdio status\n got %+v\nwant %+v", got, tt.status)
			}
		})
	}
}

func withDetail(o StdioSeen, detail string) StdioSeen {
	o.Detail = detail
	return o
}

func equalKinds(a, b []EventKind) bool {
	return strings.Join(kindStrings(a), ",") == strings.Join(kindStrings(b), ",")
}

func kindStrings(ks []EventKind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

func equalStdio(a, b StdioStatus) bool { return reflect.DeepEqual(a, b) }

// The facts of a stdio event carry what the supervisor said, and a report
// from the future or without a time is dated when it came.
func TestStdioFactsAndTimes(t *testing.T) {
	t.Parallel()
	m := NewStdios()
	now := stdioT0.Add(time.Minute)
	r := stdioAt(StdioRestarted, 7, 0, StdioReport{Child: 71, Starts: 2, Took: 1500*time.Millisecond + 300*time.Microsecond})
	r.Report.At = now.Add(time.Hour)
	evs := m.Apply(r, now)
	if len(evs) != 1 {
		t.Fatalf("events %+v", evs)
	}
	want := Supervised{Took: 1500 * time.Millisecond, Starts: 2, Supervisor: 7, Child: 71}
	if evs[0].Facts != want || !evs[0].Time.Equal(now) {
		t.Errorf("facts %+v at %v, want %+v at %v", evs[0].Facts, evs[0].Time, want, now)
	}
	if evs[0].Detail != "opencode: filesystem restarted in 1.5s" {
		t.Errorf("detail %q", evs[0].Detail)
	}
	long := strings.Repeat("x", 2*stdioStderrMax)
	ev := m.Apply(stdioAt(StdioExited, 7, 0, StdioReport{Stderr: long + "\n"}), now)[0]
	if f, _ := ev.Facts.(Supervised); len([]rune(f.Stderr)) != stdioStderrMax {
		t.Errorf("stderr kept %d runes, want %d", len([]rune(f.Stderr)), stdioStderrMax)
	}
	if (&Model{}).apply(r, now) != nil {
		t.Error("a host's model took a stdio report")
	}
}

// A start reads the journal's stdio events back: the counts and the last
// exit at once, and a supervisor only once its socket is linked again; a
// supervisor whose socket never comes back is not listed, nor one whose
// link broke, until it is linked again.
func TestStdiosRestoreFromTheJournal(t *testing.T) {
	t.Parallel()
	m := NewStdios()
	now := stdioT0.Add(time.Minute)
	live, gone := NewStdios(), NewStdios()
	var evs []Event
	for _, r := range []StdioSeen{
		stdioAt(StdioStarted, 7, 0, StdioReport{Child: 70, Starts: 1}),
		stdioAt(StdioExited, 7, 1000, StdioReport{Exit: "signal: killed", Child: 70}),
		stdioAt(StdioCallFailed, 7, 1001, StdioReport{Method: "tools/call"}),
		stdioAt(StdioRestarted, 7, 1120, StdioReport{Child: 71, Starts: 2, Took: 120 * time.Millisecond}),
		stdioAt(StdioHung, 8, 2000, StdioReport{Child: 80}),
	} {
		evs = append(evs, live.Apply(r, now)...)
	}
	m.Restore(evs)
	before := m.Status()[0].Stdio
	if before.Supervisors != 0 || before.Exits != 1 || before.Restarts != 1 || before.FailedCalls != 1 || before.LastExit != "signal: killed" {
		t.Errorf("restored, not linked: %+v", before)
	}
	m.Apply(StdioSeen{Report: StdioReport{Kind: StdioLinked, PID: 7}}, now)
	st := m.Status()[0]
	if st.State != Healthy || st.Stdio.Supervisors != 1 || st.Stdio.PID != 71 || st.Stdio.Starts != 2 {
		t.Errorf("linked again: %s %+v", st.State, st.Stdio)
	}
	m.Apply(StdioSeen{Report: StdioReport{Kind: StdioUnlinked, PID: 7}}, now)
	if st := m.Status()[0]; st.State != Unknown || st.Stdio.Supervisors != 0 {
		t.Errorf("unlinked: %s %+v", st.State, st.Stdio)
	}
	m.Apply(StdioSeen{Report: StdioReport{Kind: StdioLinked, PID: 7}}, now)
	if st := m.Status()[0]; st.State != Healthy || st.Stdio.PID != 71 {
		t.Errorf("a broken link linked again: %s %+v", st.State, st.Stdio)
	}
	gone.Restore(evs)
	gone.Apply(StdioSeen{Report: StdioReport{Kind: StdioLinked, PID: 8}}, now)
	if st := gone.Status()[0]; st.State != Down || st.Stdio.PID != 80 {
		t.Errorf("the hung supervisor linked again: %s %+v", st.State, st.Stdio)
	}
}

// The supervisors kept for a link that may come back are bounded: each
// one killed leaves one.
func TestStdioDormantBounded(t *testing.T) {
	t.Parallel()
	m := NewStdios()
	now := stdioT0.Add(time.Hour)
	for pid := 1; pid <= 2*maxDormant; pid++ {
		m.Apply(stdioAt(StdioStarted, pid, pid, StdioReport{Child: pid + 10000}), now)
		m.Apply(StdioSeen{Report: StdioReport{Kind: StdioUnlinked, PID: pid}}, now)
	}
	if len(m.dormant) != maxDormant {
		t.Errorf("%d dormant supervisors kept, want %d", len(m.dormant), maxDormant)
	}
	if _, ok := m.dormant[2*maxDormant]; !ok {
		t.Error("the newest dormant supervisor was dropped")
	}
}
