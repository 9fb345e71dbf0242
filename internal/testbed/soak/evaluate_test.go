package soak

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

var e0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return e0.Add(time.Duration(ms) * time.Millisecond) }

const (
	idA = "aaaa1111-0000-0000-0000-00000000aaaa"
	idB = "bbbb2222-0000-0000-0000-00000000bbbb"
)

// seen is a journal record of kind at ms, with the typed fields of typed.
func seen(ms int, kind health.EventKind, server, id string, typed journal.Record) Seen {
	typed.Time, typed.Kind, typed.Server, typed.Session = at(ms), kind, server, mask.ID(id)
	return Seen{At: at(ms), Rec: typed}
}

// base: host session A on "warm" (keep-warm) and B on "cold", both ending.
func base() Input {
	return Input{
		Servers:    map[string]ServerInfo{"warm": {Timeout: 3 * time.Second, KeepWarm: true}, "cold": {Timeout: 2 * time.Second}},
		HostClient: "host",
		Events: []ServerEvent{
			{At: at(0), Server: "warm", Start: true, ID: idA, Client: "host"},
			{At: at(0), Server: "cold", Start: true, ID: idB, Client: "other"},
			{At: at(5000), Server: "cold", ID: idB, Reason: "idle"},
		},
		Hosts: []Span{{From: at(-1000)}},
		End:   at(20000),
	}
}

// Long: a table of 16 cases.
func TestEvaluate(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Input)
		want  string // a substring of the problems; "" for none
		check func(t *testing.T, r Report)
	}{
		{"detected in time", func(in *Input) {
			in.Journal = []Seen{seen(5400, health.EvSessionExpired, "cold", idB, journal.Record{})}
		}, "", func(t *testing.T, r Report) {
			if r.Detected != 1 || r.LatencyMax != 400*time.Millisecond {
				t.Fatalf("detected %d, max latency %s", r.Detected, r.LatencyMax)
			}
		}},
		{"missed", func(in *Input) {}, "never journaled", nil},
		{"ended in the daemon's last second: not judged", func(in *Input) {
			in.Stopped = at(5600)
		}, "", func(t *testing.T, r Report) {
			if r.AtTheEnd != 1 || r.Detected != 0 {
				t.Fatalf("at the end %d, detected %d", r.AtTheEnd, r.Detected)
			}
		}},
		{"ended a second before the daemon's stop: missed", func(in *Input) {
			in.Stopped = at(6100)
		}, "never journaled", nil},
		{"late", func(in *Input) {
			in.Journal = []Seen{seen(6500, health.EvSessionEnded, "cold", idB, journal.Record{})}
		}, "detected later than", nil},
		{"ended while the watchdog was down: timed from its return", func(in *Input) {
			in.WatchdogDown = []Span{{From: at(4800), To: at(6000)}}
			in.Journal = []Seen{seen(6500, health.EvSessionExpired, "cold", idB, journal.Record{})}
		}, "", nil},
		{"ended just before the watchdog went down: its downtime does not count", func(in *Input) {
			in.WatchdogDown = []Span{{From: at(5050), To: at(6300)}}
			in.Journal = []Seen{seen(6600, health.EvSessionExpired, "cold", idB, journal.Record{})}
		}, "", nil},
		{"ended well before the watchdog went down: late all the same", func(in *Input) {
			in.WatchdogDown = []Span{{From: at(5800), To: at(7000)}}
			in.Journal = []Seen{seen(7500, health.EvSessionExpired, "cold", idB, journal.Record{})}
		}, "detected later than", nil},
		{"false alarm on a live session", func(in *Input) {
			in.Journal = []Seen{seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}), seen(7000, health.EvSessionLost, "warm", idA, journal.Record{Facts: health.Loss{Incident: true}})}
			in.Notes = []Note{{At: at(7001), Title: "warm: session lost — the watchdog is healing it"}}
		}, "false session_lost", nil},
		{"a server kill ends its sessions at the restart", func(in *Input) {
			in.ServerDown = map[string][]Span{"warm": {{From: at(8000), To: at(9000)}}}
			in.Journal = []Seen{seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}), seen(9200, health.EvSessionLost, "warm", idA, journal.Record{Facts: health.Loss{Incident: true}})}
			in.Notes = []Note{{At: at(9201), Title: "warm: session lost — the watchdog is healing it"}}
		}, "", func(t *testing.T, r Report) {
			if r.EndedBy["killed"] != 1 || r.Incidents["warm"] != 1 {
				t.Fatalf("ended by %v, incidents %v", r.EndedBy, r.Incidents)
			}
		}},
		{"two notifications for one incident", func(in *Input) {
			in.ServerDown = map[string][]Span{"warm": {{From: at(8000), To: at(9000)}}}
			in.Journal = []Seen{seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}), seen(9200, health.EvSessionLost, "warm", idA, journal.Record{Facts: health.Loss{Incident: true}})}
			in.Notes = []Note{{At: at(9201), Title: "warm: session lost — x"}, {At: at(9300), Title: "warm: session lost — x"}}
		}, "1 incidents but 2 loss notifications", nil},
		{"a notification re-sent after a kill -9 may repeat, once", func(in *Input) {
			in.ServerDown = map[string][]Span{"warm": {{From: at(8000), To: at(9000)}}}
			lost := seen(9200, health.EvSessionLost, "warm", idA, journal.Record{Facts: health.Loss{Incident: true}})
			in.Journal = []Seen{seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}), lost,
				{At: at(9300), Rec: journal.Record{Kind: health.EvStarted}},
				{At: at(9400), Rec: journal.Record{Kind: health.EvNotified, Server: "warm", Facts: health.Notice{About: "lost"}}}}
			in.Notes = []Note{{At: at(9201), Title: "warm: session lost — x"}, {At: at(9401), Title: "warm: session lost — x"}}
		}, "", nil},
		{"a notification re-sent after a kill -9 whose record follows the new run's own loss is still a re-send", func(in *Input) {
			// soak seed 1796033718940005853 under load: the restart re-sent a
			// loss, and journaled that after a new loss of the same server.
			in.ServerDown = map[string][]Span{"warm": {{From: at(8000), To: at(9000)}, {From: at(9320), To: at(9340)}}}
			in.Events = append(in.Events, ServerEvent{At: at(9100), Server: "warm", Start: true, ID: idC, Client: "host"})
			in.Journal = []Seen{seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}),
				seen(9200, health.EvSessionLost, "warm", idA, journal.Record{Facts: health.Loss{Incident: true}}),
				{At: at(9300), Rec: journal.Record{Kind: health.EvStarted}},
				seen(9350, health.EvSessionLost, "warm", idC, journal.Record{Facts: health.Loss{Incident: true}}),
				{At: at(9400), Rec: journal.Record{Kind: health.EvNotified, Server: "warm", Facts: health.Notice{About: "lost"}}},
				{At: at(9500), Rec: journal.Record{Kind: health.EvNotified, Server: "warm", Facts: health.Notice{About: "lost"}}}}
			in.Notes = []Note{{At: at(9201), Title: "warm: session lost — x"}, {At: at(9399), Title: "warm: session lost — x"},
				{At: at(9499), Title: "warm: session lost — y"}}
		}, "", nil},
		{"a notification re-sent after a kill -9 inside a storm's summary may repeat, once", func(in *Input) {
			in.ServerDown = map[string][]Span{"warm": {{From: at(8000), To: at(9000)}}}
			lost := seen(9200, health.EvSessionLost, "warm", idA, journal.Record{Facts: health.Loss{Incident: true}})
			summary := "MCP watchdog: 1 more sessions lost: warm"
			in.Journal = []Seen{seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}), lost,
				{At: at(9300), Rec: journal.Record{Kind: health.EvStarted}},
				{At: at(9400), Rec: journal.Record{Kind: health.EvNotified, Facts: health.Notice{About: "lost_summary"}, Extra: map[string]any{"title": summary}}}}
			in.Notes = []Note{{At: at(9201), Title: "warm: session lost — x"}, {At: at(9401), Title: summary}}
		}, "", nil},
		{"a loss re-sent after a kill -9 is not a second told loss: the one only a summary told needs no recovered notification", func(in *Input) {
			// soak seed 1796033718940005853 under load: 13 loss bubbles for
			// 12 incidents told one by one (one re-sent), 6 more in summaries.
			in.ServerDown = map[string][]Span{"warm": {{From: at(8000), To: at(9000)}, {From: at(11000), To: at(11500)}}}
			in.Events = append(in.Events, ServerEvent{At: at(9450), Server: "warm", Start: true, ID: idC, Client: "host"},
				ServerEvent{At: at(11800), Server: "warm", Start: true, ID: idD, Client: "host"})
			in.Journal = []Seen{seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}),
				seen(9200, health.EvSessionLost, "warm", idA, journal.Record{Facts: health.Loss{Incident: true}}),
				{At: at(9300), Rec: journal.Record{Kind: health.EvStarted}},
				{At: at(9400), Rec: journal.Record{Kind: health.EvNotified, Server: "warm", Facts: health.Notice{About: "lost"}}},
				seen(9500, health.EvRecovered, "warm", "", journal.Record{Facts: health.Recovery{NewSession: mask.ID(idC)}}),
				seen(11700, health.EvSessionLost, "warm", idC, journal.Record{Facts: health.Loss{Incident: true}}),
				seen(11900, health.EvRecovered, "warm", "", journal.Record{Facts: health.Recovery{NewSession: mask.ID(idD)}})}
			in.Notes = []Note{{At: at(9201), Title: "warm: session lost — x"}, {At: at(9401), Title: "warm: session lost — x"},
				{At: at(9501), Title: "warm recovered in 300ms"}, {At: at(12000), Title: "MCP watchdog: 1 more sessions lost: warm"}}
		}, "", nil},
		{"a recovery the final kill -9 came before telling: untold allowed", func(in *Input) {
			// soak seed 1796033718940005853: a loss told, its recovery
			// journaled 3 ms before the final crash, its bubble still queued.
			in.ServerDown = map[string][]Span{"warm": {{From: at(8000), To: at(9000)}}}
			in.Journal = []Seen{seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}),
				seen(9200, health.EvSessionLost, "warm", idA, journal.Record{Facts: health.Loss{Incident: true}}),
				seen(29000, health.EvRecovered, "warm", "", journal.Record{})}
			in.Events = append(in.Events, ServerEvent{At: at(28900), Server: "warm", Start: true, ID: idC, Client: "host"})
			in.Notes = []Note{{At: at(9201), Title: "warm: session lost — x"}}
			in.End, in.Stopped = at(30000), at(29003)
		}, "", nil},
		{"a recovery well before the final kill -9 never told", func(in *Input) {
			in.ServerDown = map[string][]Span{"warm": {{From: at(8000), To: at(9000)}}}
			in.Journal = []Seen{seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}),
				seen(9200, health.EvSessionLost, "warm", idA, journal.Record{Facts: health.Loss{Incident: true}}),
				seen(9300, health.EvRecovered, "warm", "", journal.Record{})}
			in.Events = append(in.Events, ServerEvent{At: at(9250), Server: "warm", Start: true, ID: idC, Client: "host"})
			in.Notes = []Note{{At: at(9201), Title: "warm: session lost — x"}}
			in.End, in.Stopped = at(30000), at(29003)
		}, "1 recoveries but 0 recovered notifications", nil},
		{"kept-warm session expired", func(in *Input) {
			in.Events = append(in.Events, ServerEvent{At: at(9000), Server: "warm", ID: idA, Reason: "idle"})
			in.Journal = []Seen{seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}), seen(9100, health.EvSessionExpired, "warm", idA, journal.Record{})}
		}, "kept-warm sessions expired", nil},
		{"dead host's session pinged", func(in *Input) {
			in.Hosts = []Span{{From: at(-1000), To: at(3000)}}
			in.Events = append(in.Events, ServerEvent{At: at(7000), Server: "warm", ID: idA, Reason: "idle"})
			in.Journal = []Seen{seen(3500, health.EvKeepWarm, "warm", idA, journal.Record{}), seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}), seen(7100, health.EvSessionExpired, "warm", idA, journal.Record{})}
		}, "sessions of dead hosts kept alive", nil},
		{"a log line replayed after a restart", func(in *Input) {
			pos := journal.Record{Log: health.LogPosition{File: "/x.log", Fingerprint: "ab", Offset: 10}}
			in.Journal = []Seen{seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}),
				seen(6000, health.EvLegacyHeaderRejected, "cold", "", pos), seen(7000, health.EvLegacyHeaderRejected, "cold", "", pos)}
		}, "journaled twice", nil},
		{"dead host's session left to expire", func(in *Input) {
			in.Hosts = []Span{{From: at(-1000), To: at(3000)}}
			in.Events = append(in.Events, ServerEvent{At: at(6100), Server: "warm", ID: idA, Reason: "idle"})
			in.Journal = []Seen{seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}), seen(6200, health.EvSessionExpired, "warm", idA, journal.Record{})}
		}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			tt.edit(&in)
			r := Evaluate(in)
			got := strings.Join(r.Problems, "\n")
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Fatalf("problems:\n%s\nwant %q", got, tt.want)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}
