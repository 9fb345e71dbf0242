package soak

import (
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

const (
	idC = "cccc3333-0000-0000-0000-00000000cccc"
	idD = "dddd4444-0000-0000-0000-00000000dddd"
)

// recoveredAs is a recovered record naming the host's new session (masked)
// and where it was known from.
func recoveredAs(newSession string, source health.IdentitySource) journal.Record {
	return journal.Record{Facts: health.Recovery{NewSession: newSession, Source: source}}
}

// atRiskFrom is an at-risk record of the host's session known from source.
func atRiskFrom(source health.IdentitySource) journal.Record {
	return journal.Record{Facts: health.Risk{Source: source}}
}

// lostAndBack: base, with warm's server killed at 8 s and back at 9 s; the
// loss of the host's session A journaled at 9.2 s, the host's new session C
// opened at 9.5 s, and a recovered at 9.8 s.
func lostAndBack() Input {
	in := base()
	in.ServerDown = map[string][]Span{"warm": {{From: at(8000), To: at(9000)}}}
	in.Events = append(in.Events, ServerEvent{At: at(9500), Server: "warm", Start: true, ID: idC, Client: "host"})
	lost := journal.Record{Facts: health.Loss{Incident: true}, Detail: "lost L"}
	in.Journal = []Seen{seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}),
		seen(9200, health.EvSessionLost, "warm", idA, lost), seen(9800, health.EvRecovered, "warm", idA, journal.Record{Detail: "back R"})}
	in.Notes = []Note{{At: at(9201), Title: "warm: session lost — x", Body: "lost L"}, {At: at(9801), Title: "warm recovered in 600ms", Body: "back R"}}
	return in
}

// setRecovered replaces the recovered record (the last) with rec, read at ms.
func setRecovered(in *Input, ms int, rec journal.Record) {
	in.Journal[len(in.Journal)-1] = seen(ms, health.EvRecovered, "warm", idA, rec)
}

// Long: a table of cases, one per way a recovery is or is not genuine.
func TestEvaluateRecoveries(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*Input)
		genuine int
		want    string // a substring of the problems; "" for none
	}{
		{"the host's new session, alive", func(in *Input) {}, 1, ""},
		{"no new session on the server", func(in *Input) { in.Events = in.Events[:len(in.Events)-1] }, 0, "not genuine"},
		{"the new session ended before the claim", func(in *Input) {
			in.Events = append(in.Events, ServerEvent{At: at(9600), Server: "warm", ID: idC, Reason: "deleted"})
			in.Journal = append(in.Journal[:2], seen(9650, health.EvSessionEnded, "warm", idC, journal.Record{}),
				seen(10500, health.EvRecovered, "warm", idA, journal.Record{Detail: "back R"}))
			in.Notes[1].At = at(10501)
		}, 0, "not genuine"},
		{"only a session older than the loss", func(in *Input) {
			in.ServerDown = nil // A ends idle, C, opened before, lives on
			in.Events[len(in.Events)-1] = ServerEvent{At: at(1000), Server: "warm", Start: true, ID: idC, Client: "host"}
			in.Events = append(in.Events, ServerEvent{At: at(8500), Server: "warm", ID: idA, Reason: "idle"})
		}, 0, "1 recovered of 1 not genuine"},
		{"another client's new session", func(in *Input) { in.Events[len(in.Events)-1].Client = "other" }, 0, "not genuine"},
		{"new_session names the new session", func(in *Input) {
			setRecovered(in, 9800, recoveredAs(mask.ID(idC), ""))
		}, 1, ""},
		{"new_session names a session the server never had", func(in *Input) {
			setRecovered(in, 9800, recoveredAs(mask.ID(idD), ""))
		}, 0, "not genuine"},
		{"new_session is the lost one", func(in *Input) {
			setRecovered(in, 9800, recoveredAs(mask.ID(idA), ""))
		}, 0, "is the lost session"},
		{"the 'new' session is the lost one, still alive", func(in *Input) {
			in.Events[len(in.Events)-1].At = at(9100)
			in.Journal[1] = seen(9200, health.EvSessionLost, "warm", idC, journal.Record{Facts: health.Loss{Incident: true}, Detail: "lost L"})
			in.Journal[2].Rec.Session = mask.ID(idC)
		}, 0, "not genuine"},
		{"a recovered with no incident open", func(in *Input) {
			in.Journal[1].Rec.Facts = health.Loss{}
			in.Notes = nil
		}, 0, "no incident open"},
		{"held by a journal failure: judged when it was decided", func(in *Input) {
			in.Events = append(in.Events, ServerEvent{At: at(10000), Server: "warm", ID: idC, Reason: "deleted"})
			in.JournalFault = []Span{{From: at(9700), To: at(11000)}}
			in.Journal = append(in.Journal[:2],
				seen(11200, health.EvRecovered, "warm", idA, journal.Record{Detail: "back R"}),
				seen(11300, health.EvSessionEnded, "warm", idC, journal.Record{}),
				seen(11400, health.EvWarning, "", "", journal.Record{Detail: "the journal could not be written for 1.3s"}))
		}, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := lostAndBack()
			tt.edit(&in)
			r := Evaluate(in)
			checkProblems(t, r, tt.want)
			if r.Genuine != tt.genuine {
				t.Fatalf("genuine %d, want %d (not genuine: %v)", r.Genuine, tt.genuine, r.NotGenuine)
			}
		})
	}
}

func TestEvaluateKilledSessionsAreNotIdleExpiries(t *testing.T) {
	in := lostAndBack()
	in.Journal[1].Rec.Kind = health.EvSessionExpired
	r := Evaluate(in)
	checkProblems(t, r, "journaled as idle expiry")
	if len(r.KilledAsExpired) != 1 || len(r.ExpiredNotIdle) != 0 {
		t.Fatalf("killed as expired %v, expired not idle %v", r.KilledAsExpired, r.ExpiredNotIdle)
	}
	if r := Evaluate(lostAndBack()); len(r.KilledAsExpired) != 0 || len(r.Problems) != 0 {
		t.Fatalf("a kill journaled as a loss: killed as expired %v, problems %v", r.KilledAsExpired, r.Problems)
	}
}

// A session the proxy ended itself (DELETE) and journaled as an idle
// expiry names the wrong cause: a problem, as a kill named so is.
func TestEvaluateDeletedSessionsAreNotIdleExpiries(t *testing.T) {
	in := base()
	in.Events[2].Reason = "deleted"
	in.Journal = []Seen{seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{})}
	r := Evaluate(in)
	checkProblems(t, r, "ended for another reason than idleness")
	if len(r.ExpiredNotIdle) != 1 || len(r.KilledAsExpired) != 0 {
		t.Fatalf("expired not idle %v, killed as expired %v", r.ExpiredNotIdle, r.KilledAsExpired)
	}
}

// Long: a table of cases, one per identity source and beacon state.
func TestEvaluateIdentitySource(t *testing.T) {
	atRisk := func(ms int, id string, source ...string) Seen {
		var src health.IdentitySource
		if len(source) > 0 {
			src = health.IdentitySource(source[0])
		}
		return seen(ms, health.EvSessionAtRisk, "warm", id, atRiskFrom(src))
	}
	live := []Span{{From: at(-1000)}}
	tests := []struct {
		name                              string
		beacons                           []Span
		journal                           []Seen
		beacon, inferred, unsaid, flagged int
	}{
		{"named by the beacon", live, []Seen{atRisk(2000, idA, "beacon"), atRisk(2500, idA, "beacon")}, 1, 0, 0, 0},
		{"inferred, no beacon", nil, []Seen{atRisk(2000, idA, "inferred")}, 0, 1, 0, 0},
		{"inferred while the live beacon named it", live, []Seen{atRisk(2000, idA, "inferred"), atRisk(2500, idA, "inferred")}, 0, 1, 0, 1},
		{"inferred before the beacon could be read", live, []Seen{atRisk(500, idA, "inferred")}, 0, 1, 0, 0},
		{"inferred once the beacon's writer was dead", []Span{{From: at(-1000), To: at(1500)}}, []Seen{atRisk(2000, idA, "inferred")}, 0, 1, 0, 0},
		{"not said", live, []Seen{seen(2000, health.EvSessionAtRisk, "warm", idA, journal.Record{})}, 0, 0, 1, 0},
		{"a source the soak does not know says nothing", live, []Seen{atRisk(2000, idA, "guess")}, 0, 0, 1, 0},
		{"beacon first, inferred later", live, []Seen{atRisk(2000, idA, "beacon"), atRisk(3000, idA, "inferred")}, 1, 1, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			in.Beacons = tt.beacons
			in.Journal = append([]Seen{seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{})}, tt.journal...)
			r := Evaluate(in)
			want := ""
			if tt.flagged > 0 {
				want = "inferred while the host's live beacon named them"
			}
			checkProblems(t, r, want)
			id := r.Identity
			if id.Beacon != tt.beacon || id.Inferred != tt.inferred || id.Unsaid != tt.unsaid || len(id.InferredWhileBeacon) != tt.flagged {
				t.Fatalf("beacon %d inferred %d unsaid %d flagged %v; want %d %d %d %d",
					id.Beacon, id.Inferred, id.Unsaid, id.InferredWhileBeacon, tt.beacon, tt.inferred, tt.unsaid, tt.flagged)
			}
		})
	}
}

func TestEvaluateIdentityBeaconMovedOn(t *testing.T) {
	in := base()
	in.Beacons = []Span{{From: at(-1000)}}
	in.Events = append(in.Events, ServerEvent{At: at(1000), Server: "warm", Start: true, ID: idC, Client: "host"})
	in.Journal = []Seen{seen(3000, health.EvSessionAtRisk, "warm", idA, atRiskFrom(health.SourceInferred)),
		seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{})}
	if r := Evaluate(in); len(r.Identity.InferredWhileBeacon) != 0 {
		t.Fatalf("the beacon named the newer session, yet A was flagged: %v", r.Identity.InferredWhileBeacon)
	}
	// A recovered record counts the session it names as new.
	in = lostAndBack()
	setRecovered(&in, 9800, recoveredAs(mask.ID(idC), health.SourceBeacon))
	if r := Evaluate(in); r.Identity.Beacon != 1 || r.Identity.Unsaid != 1 {
		t.Fatalf("beacon %d unsaid %d: want C by the beacon, A's loss not said", r.Identity.Beacon, r.Identity.Unsaid)
	}
}

func checkProblems(t *testing.T, r Report, want string) {
	t.Helper()
	got := strings.Join(r.Problems, "\n")
	if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
		t.Fatalf("problems:\n%s\nwant %q", got, want)
	}
}
