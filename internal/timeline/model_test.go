package timeline

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

func rec(sec int, kind health.EventKind, server, session string) journal.Record {
	return journal.Record{Time: at(sec), Kind: kind, Server: server, Session: session, Facts: ofClient(kind, "dsh-mcp-client")}
}

// ofClient is kind's facts naming client where its family names one.
func ofClient(kind health.EventKind, client string) health.Facts {
	switch health.FactsOf(kind).(type) {
	case health.Opened:
		return health.Opened{Client: client}
	case health.Ended:
		return health.Ended{Client: client}
	case health.Loss:
		return health.Loss{Client: client}
	}
	return health.FactsOf(kind)
}

// one incident on mem: its session is kept warm, lost at 100 s, healed,
// and the client's new session recovers it at 100.4 s.
func incidentJournal() []journal.Record {
	mode := rec(0, health.EvServerMode, "mem", "")
	mode.Extra = map[string]any{"idle_timeout_seconds": 30.0}
	lost := rec(100, health.EvSessionLost, "mem", "aaaa…aaaa")
	lost.Facts, lost.Detail = health.Loss{Incident: true}, "the host's session on mem is gone: the server restarted"
	heal := rec(100, health.EvHealStarted, "mem", "")
	heal.Facts = health.Attempt{Strategy: "client_recovery"}
	recovered := rec(100, health.EvRecovered, "mem", "aaaa…aaaa")
	recovered.Time = at(100).Add(400 * time.Millisecond)
	recovered.Facts = health.Recovery{Took: 400 * time.Millisecond, Strategy: "client_recovery", NewSession: "bbbb…bbbb"}
	return []journal.Record{
		rec(0, health.EvStarted, "", ""), mode,
		rec(1, health.EvSessionNew, "mem", "aaaa…aaaa"),
		rec(16, health.EvKeepWarm, "mem", "aaaa…aaaa"),
		rec(31, health.EvKeepWarm, "mem", "aaaa…aaaa"),
		lost, heal, recovered,
		rec(101, health.EvSessionNew, "mem", "bbbb…bbbb"),
	}
}

// Long: a table of cases, one per thing the page draws from the journal.
func TestBuild(t *testing.T) {
	tests := []struct {
		name  string
		recs  func() []journal.Record
		from  time.Time
		check func(t *testing.T, p Page)
	}{
		{"a kept-warm session lost and recovered", incidentJournal, at(0), func(t *testing.T, p Page) {
			if len(p.Servers) != 1 || len(p.Servers[0].Sessions) != 2 {
				t.Fatalf("servers %+v, want mem with two sessions", p.Servers)
			}
			old, next := p.Servers[0].Sessions[0], p.Servers[0].Sessions[1]
			if old.End != health.EvSessionLost || !old.To.Equal(at(100)) || len(old.Pings) != 2 || old.Open {
				t.Fatalf("the lost session's bar: %+v", old)
			}
			if !next.Open || !next.To.Equal(at(200)) {
				t.Fatalf("the new session runs to the page's end: %+v", next)
			}
			if len(p.Incidents) != 1 {
				t.Fatalf("incidents %+v", p.Incidents)
			}
			inc := p.Incidents[0]
			if inc.Took != 400*time.Millisecond || inc.NewSession != "bbbb…bbbb" || inc.Strategy != "client_recovery" || len(inc.Heals) != 1 {
				t.Fatalf("incident %+v", inc)
			}
			want := Summary{Sessions: 2, Incidents: 1, Recovered: 1, MedianRecovery: 400 * time.Millisecond, KeptWarm: 1, PastTimeout: 1}
			if p.Summary != want {
				t.Fatalf("summary %+v, want %+v", p.Summary, want)
			}
		}},
		{"records before the window are left out", incidentJournal, at(50), func(t *testing.T, p Page) {
			// The lost session is first seen at its loss; the recovery
			// belongs to the incident opened in the window.
			if got := len(p.Servers[0].Sessions); got != 2 {
				t.Fatalf("sessions %d", got)
			}
			if first := p.Servers[0].Sessions[0]; !first.From.Equal(at(100)) || len(first.Pings) != 0 {
				t.Fatalf("first bar %+v", first)
			}
		}},
		{"a recovery whose loss is before the window opens no incident", func() []journal.Record {
			return incidentJournal()[6:]
		}, at(0), func(t *testing.T, p Page) {
			if len(p.Incidents) != 0 || p.Summary.Recovered != 0 {
				t.Fatalf("incidents %+v", p.Incidents)
			}
		}},
		{"an expiry and the incident's loss of one session make one bar", func() []journal.Record {
			exp := rec(40, health.EvSessionExpired, "mem", "aaaa…aaaa")
			exp.Facts = health.Ended{Client: "dsh-mcp-client", Idle: 30 * time.Second}
			lost := rec(40, health.EvSessionLost, "mem", "aaaa…aaaa")
			lost.Facts = health.Loss{Incident: true}
			return []journal.Record{rec(1, health.EvSessionNew, "mem", "aaaa…aaaa"), exp, lost}
		}, at(0), func(t *testing.T, p Page) {
			s := p.Servers[0]
			if len(s.Sessions) != 1 || s.Sessions[0].End != health.EvSessionExpired || s.Sessions[0].Idle != 30*time.Second {
				t.Fatalf("bars %+v", s.Sessions)
			}
			if p.Summary.Expired != 1 || p.Summary.Incidents != 1 || p.Summary.Recovered != 0 || p.Summary.MedianRecovery != 0 {
				t.Fatalf("summary %+v", p.Summary)
			}
		}},
		{"overlapping sessions get rows of their own, a later one reuses a free row", func() []journal.Record {
			return []journal.Record{
				rec(1, health.EvSessionNew, "mem", "a"), rec(2, health.EvSessionNew, "mem", "b"),
				rec(5, health.EvSessionEnded, "mem", "a"), rec(9, health.EvSessionNew, "mem", "c"),
			}
		}, at(0), func(t *testing.T, p Page) {
			s := p.Servers[0]
			rows := []int{s.Sessions[0].Row, s.Sessions[1].Row, s.Sessions[2].Row}
			if rows[0] != 0 || rows[1] != 1 || rows[2] != 0 || s.Rows != 2 {
				t.Fatalf("rows %v of %d", rows, s.Rows)
			}
		}},
		{"host restarts and the watchdog's own starts are on the host lane", func() []journal.Record {
			return []journal.Record{rec(1, health.EvStarted, "", ""), rec(2, health.EvHostUp, "", ""),
				rec(3, health.EvHostRestarted, "", ""), rec(4, health.EvStopped, "", "")}
		}, at(0), func(t *testing.T, p Page) {
			if len(p.Host) != 4 || p.Host[2].Kind != health.EvHostRestarted {
				t.Fatalf("host marks %+v", p.Host)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, Build(tt.recs(), tt.from, at(200)))
		})
	}
}

// A lane never grows past maxRows, however many sessions overlap.
func TestPackBoundsTheRows(t *testing.T) {
	var recs []journal.Record
	for i := range 3 * maxRows {
		recs = append(recs, rec(i, health.EvSessionNew, "mem", string(rune('A'+i))))
	}
	p := Build(recs, at(0), at(200))
	if got := p.Servers[0].Rows; got != maxRows {
		t.Fatalf("rows %d, want %d", got, maxRows)
	}
	if len(p.Servers[0].Sessions) != 3*maxRows {
		t.Fatalf("every session keeps its bar: %d", len(p.Servers[0].Sessions))
	}
}

func TestJournalWindow(t *testing.T) {
	now := at(100_000_000)
	tests := []struct {
		name     string
		recs     []journal.Record
		from, to time.Time
	}{
		{"no records: the minute before now", nil, now.Add(-MinSpan), now},
		{"a short run: widened evenly to a minute", []journal.Record{rec(10, health.EvStarted, "", ""), rec(30, health.EvStopped, "", "")},
			at(-10), at(50)},
		{"an hour: first to last event", []journal.Record{rec(0, health.EvStarted, "", ""), rec(3600, health.EvStopped, "", "")},
			at(0), at(3600)},
		{"out of order lines (rotation): still first to last", []journal.Record{rec(500, health.EvStarted, "", ""),
			rec(0, health.EvStarted, "", ""), rec(3600, health.EvStopped, "", ""), rec(200, health.EvStopped, "", "")}, at(0), at(3600)},
		{"a month: the week before the last event", []journal.Record{rec(0, health.EvStarted, "", ""), rec(30*86400, health.EvStopped, "", "")},
			at(23 * 86400), at(30 * 86400)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, to := JournalWindow(tt.recs, now)
			if !from.Equal(tt.from) || !to.Equal(tt.to) {
				t.Fatalf("window %s → %s, want %s → %s", from, to, tt.from, tt.to)
			}
		})
	}
}

// Sessions of the host's client get rows of their own; the others are
// summed in one row below them, whatever their number.
func TestOtherClientsAreSummed(t *testing.T) {
	recs := []journal.Record{rec(1, health.EvSessionNew, "mem", "host-a"), rec(5, health.EvKeepWarm, "mem", "host-a")}
	for i := range 40 {
		r := rec(2+i, health.EvSessionNew, "mem", fmt.Sprintf("other-%d", i))
		r.Facts = health.Opened{Client: "other-agent"}
		recs = append(recs, r)
	}
	recs = append(recs, rec(60, health.EvSessionNew, "mem", "host-b")) // the host's client, never pinged
	s := Build(recs, at(0), at(200)).Servers[0]
	if s.Others != 40 || s.Rows != 3 {
		t.Fatalf("%d summed in %d rows, want 40 summed below the host's two", s.Others, s.Rows)
	}
	for _, sess := range s.Sessions {
		if sess.Host != (sess.Client == "dsh-mcp-client") || (!sess.Host && sess.Row != 2) {
			t.Fatalf("session %s of %s: host %v, row %d", sess.ID, sess.Client, sess.Host, sess.Row)
		}
	}
}

// A stdio server's crash, restart and give-up are marks on its lane, a
// crash drawn as bad and a restart as a restart.
func TestStdioEventsAreMarks(t *testing.T) {
	recs := []journal.Record{
		rec(10, health.EvStdioExited, "filesystem", ""),
		rec(10, health.EvStdioCallFailed, "filesystem", ""),
		rec(11, health.EvStdioRestarted, "filesystem", ""),
		rec(40, health.EvStdioGaveUp, "filesystem", ""),
	}
	p := Build(recs, at(0), at(60))
	if len(p.Servers) != 1 || p.Servers[0].Name != "filesystem" || len(p.Servers[0].Marks) != 4 {
		t.Fatalf("servers: %+v", p.Servers)
	}
	want := []string{"bad", "bad", "restart", "bad"}
	for i, m := range p.Servers[0].Marks {
		if got := markClass(m.Kind); got != want[i] {
			t.Errorf("mark %d (%s): class %q, want %q", i, m.Kind, got, want[i])
		}
	}
}
