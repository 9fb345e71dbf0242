package health

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// Behaviours of the tests' host.
var (
	heals    = host.Behaviour{React: map[host.Answer]host.Reaction{host.NotFoundRPC: host.Retries, host.NotFoundText: host.Retries, host.BadRequest: host.Retries}}
	healsRPC = host.Behaviour{React: map[host.Answer]host.Reaction{host.NotFoundRPC: host.Retries, host.NotFoundText: host.Stuck, host.BadRequest: host.Stuck}}
	on404    = host.Behaviour{React: map[host.Answer]host.Reaction{host.NotFoundRPC: host.Retries, host.NotFoundText: host.Retries, host.BadRequest: host.Hangs}}
	failsOne = host.Behaviour{React: map[host.Answer]host.Reaction{host.NotFoundRPC: host.Reinitializes, host.NotFoundText: host.Reinitializes, host.BadRequest: host.Reinitializes}}
	stuck    = host.Behaviour{React: map[host.Answer]host.Reaction{host.NotFoundRPC: host.Stuck, host.NotFoundText: host.Stuck, host.BadRequest: host.Stuck}}
)

func behaviourOf(selfHealing bool) host.Behaviour {
	if selfHealing {
		return heals
	}
	return stuck
}

// Long: a table of cases, one per host behaviour and what teaches it.
// Each: the host runs (pid 42), its session leaves the store (a loss),
// then a new session of its client appears, then it is lost again.
func TestLossesSayWhatTheHostDoes(t *testing.T) {
	t.Parallel()
	const T = time.Hour
	host := sess("host-session-0001", hostClient, t0, t0)
	host2 := sess("host-session-0002", hostClient, t0.Add(time.Minute), t0.Add(time.Minute))
	up := func(pid int32) Observation { return HostUp{PID: pid, Started: t0.Add(-T)} }
	tests := []struct {
		name                  string
		selfHealing, patch    bool
		newRun                bool   // the host restarted before its new session
		healing               bool   // a heal of the watchdog's was under way
		first, second, source string // what the two losses say, how the recovery was known
	}{
		{"stuck by its profile, and never seen to heal", false, false, true, false, "its next call will fail", "its next call will fail", ""},
		{"self-healing by its profile", true, false, false, false, "re-initializes on its next call", "re-initializes on its next call", ""},
		{"stuck by its profile, seen to heal itself", false, false, false, false, "its next call will fail", "re-initializes on its next call", onLossFromSeen},
		{"healed by the watchdog: nothing learned", false, false, false, true, "its next call will fail", "its next call will fail", ""},
		{"a patchable host's healing is its patch's", false, true, false, false, "its next call will fail", "its next call will fail", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := New(Config{HostName: "Cursor", ClientName: hostClient, Behaviour: behaviourOf(tt.selfHealing), Patchable: tt.patch,
				Servers: []ServerConfig{{Name: srv, URL: "http://127.0.0.1:14242/mcp", IdleTimeout: T}}})
			m.Apply(up(42), t0)
			m.Apply(snap(host), t0)
			evs := m.Apply(snap(), t0.Add(time.Second))
			checkLoss(t, evs, tt.first, tt.selfHealing)
			if tt.healing {
				m.Apply(HealStarted{Server: srv, Strategy: "host_restart", Within: time.Hour}, t0.Add(2*time.Second))
			}
			if tt.newRun {
				m.Apply(up(43), t0.Add(3*time.Second))
			}
			evs = m.Apply(snap(host2), t0.Add(time.Minute))
			rec := find(evs, EvRecovered)
			if rec == nil {
				t.Fatalf("no recovered: %+v", evs)
			}
			if got, _ := rec.Extra["on_loss_source"].(string); got != tt.source {
				t.Errorf("recovered says it was learned from %q, want %q (%+v)", got, tt.source, rec)
			}
			if tt.source == onLossFromSeen && !strings.Contains(rec.Detail, "heal itself") {
				t.Errorf("a learning recovery does not say so: %q", rec.Detail)
			}
			evs = m.Apply(snap(), t0.Add(2*time.Minute))
			checkLoss(t, evs, tt.second, tt.selfHealing || tt.source == onLossFromSeen)
			if m.HostHeals(srv) != (tt.selfHealing || tt.source == onLossFromSeen) {
				t.Errorf("HostHeals() = %v", m.HostHeals(srv))
			}
		})
	}
}

func find(evs []Event, k EventKind) *Event {
	for i := range evs {
		if evs[i].Kind == k {
			return &evs[i]
		}
	}
	return nil
}

func checkLoss(t *testing.T, evs []Event, says string, heals bool) {
	t.Helper()
	lost := find(evs, EvSessionLost)
	if lost == nil {
		t.Fatalf("no session_lost: %+v", evs)
	}
	if !strings.Contains(lost.Detail, says) {
		t.Errorf("loss %q does not say %q", lost.Detail, says)
	}
	want := onLossStuck
	if heals {
		want = onLossSelfHealing
	}
	if lost.Extra["on_loss"] != want || lost.Extra["host"] != "Cursor" {
		t.Errorf("loss fields %v, want on_loss %s and host Cursor", lost.Extra, want)
	}
}

// A host's words depend on how the server says a session is gone: the
// watchdog's liveness check asks about a made-up session and learns the
// answer (a 404 with a JSON-RPC error or plain text, or a 400); a host
// that heals a 404 but hangs on a 400 (Codex CLI, measured) is stuck on a
// server answering 400, and one that re-initializes but fails the call
// that met the loss (Qwen Code) says so. A patched client whose beacon
// speaks heals itself whatever its profile says.
//
// Long: a table of cases, one per behaviour and answer.
func TestLossWordsFollowTheServersAnswer(t *testing.T) {
	t.Parallel()
	const T = time.Hour
	hs := sess("host-session-0001", hostClient, t0, t0)
	tests := []struct {
		name                 string
		b                    host.Behaviour
		answer               int // the liveness check's Status; 0: never asked
		rpc                  bool
		beacon               bool
		says, onLoss, source string
		heals                bool
	}{
		{"heals a 404, not asked yet", on404, 0, false, false, "it re-initializes on its next call", onLossSelfHealing, onLossFromProfile, true},
		{"heals a 404, the server answers 404", on404, 404, false, false, "it re-initializes on its next call", onLossSelfHealing, onLossFromProfile, true},
		{"heals a 404, the server answers 400", on404, 400, false, false,
			"its next call will hang until the host gives up on it: it re-initializes after a 404 with a JSON-RPC error or a plain-text 404, but this server answers a lost session with a 400",
			onLossStuck, onLossFromProfile, false},
		{"heals a JSON-RPC 404 only, the server answers one", healsRPC, 404, true, false, "it re-initializes on its next call", onLossSelfHealing, onLossFromProfile, true},
		{"heals a JSON-RPC 404 only, the server answers plain text", healsRPC, 404, false, false,
			"this server answers a lost session with a plain-text 404", onLossStuck, onLossFromProfile, false},
		{"heals every answer, the server answers 400", heals, 400, false, false, "it re-initializes on its next call", onLossSelfHealing, onLossFromProfile, true},
		{"re-initializes but fails the call", failsOne, 404, true, false, "it re-initializes, but its next call fails first", onLossSelfHealing, onLossFromProfile, true},
		{"stuck, the server answers 404", stuck, 404, false, false, "its next call will fail", onLossStuck, onLossFromProfile, false},
		{"not known, the server answers 404", host.Behaviour{}, 404, false, false, "its next call will fail", onLossStuck, onLossFromProfile, false},
		{"stuck by its profile, its patched client speaks", stuck, 400, false, true, "its patched client re-initializes on its next call", onLossSelfHealing, onLossFromPatch, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := New(Config{HostName: "Cursor", ClientName: hostClient, Behaviour: tt.b,
				Patchable: tt.beacon, Servers: []ServerConfig{{Name: srv, URL: "http://127.0.0.1:14242/mcp", IdleTimeout: T}}})
			m.Apply(HostUp{PID: 42, Started: t0.Add(-T)}, t0)
			m.Apply(snap(hs), t0)
			if tt.answer != 0 {
				m.Apply(LivenessAnswered{Server: srv, Outcome: OutcomeAlive, Answer: host.AnswerOf(tt.answer, tt.rpc), Session: "made-up-0001"}, t0)
			}
			if tt.beacon {
				m.Apply(BeaconSeen{PID: 42, Held: map[string]Held{srv: {Session: hs.ID, Connected: true, Since: t0}}}, t0)
			}
			evs := m.Apply(snap(), t0.Add(time.Minute))
			lost := find(evs, EvSessionLost)
			if lost == nil {
				t.Fatalf("no session_lost: %+v", evs)
			}
			if !strings.Contains(lost.Detail, tt.says) || lost.Extra["on_loss"] != tt.onLoss || lost.Extra["on_loss_source"] != tt.source {
				t.Errorf("loss %q %v; want it to say %q, on_loss %s from %s", lost.Detail, lost.Extra, tt.says, tt.onLoss, tt.source)
			}
			if m.HostHeals(srv) != tt.heals {
				t.Errorf("HostHeals = %v, want %v", m.HostHeals(srv), tt.heals)
			}
		})
	}
}

// The server's log may report the made-up session the liveness check asked
// about: a line naming it, or the first naming no session right after the
// question, is the question's echo, not the host's loss; a second line
// naming none is a loss.
func TestTheAnswerCheckIsNoLoss(t *testing.T) {
	t.Parallel()
	m := New(Config{HostName: "Cursor", ClientName: hostClient,
		Servers: []ServerConfig{{Name: srv, URL: "http://127.0.0.1:14242/mcp", IdleTimeout: time.Hour}}})
	m.Apply(snap(sess("host-session-0001", hostClient, t0, t0)), t0)
	m.Asking(srv, t0)
	// The server's log may be read before the answer arrives.
	for _, sig := range []Observation{
		SessionLost{LogLine: LogLine{Server: srv, Session: AskedSession + "0001", Detail: "session not found"}},
		SessionLost{LogLine: LogLine{Server: srv, Detail: "session not found"}},
	} {
		if evs := m.Apply(sig, t0.Add(time.Second)); len(evs) != 0 {
			t.Errorf("%+v: %+v; want no event", sig, evs)
		}
	}
	m.Apply(LivenessAnswered{Server: srv, Outcome: OutcomeAlive, Answer: host.NotFoundText, Session: AskedSession + "0001"}, t0.Add(time.Second))
	if evs := m.Apply(SessionLost{LogLine: LogLine{Server: srv, Session: AskedSession + "0001"}}, t0.Add(time.Hour)); len(evs) != 0 {
		t.Errorf("a late line about the made-up session: %+v; want no event", evs)
	}
	evs := m.Apply(SessionLost{LogLine: LogLine{Server: srv, Detail: "session not found"}}, t0.Add(askEcho/2))
	if lost := find(evs, EvSessionLost); lost == nil || !strings.Contains(lost.Detail, "its next call will fail") {
		t.Errorf("a loss after the question: %+v; want session_lost saying what the host does", evs)
	}
}

// A question the server never heard (it could not be reached, or it
// answered no lost-session status) has no echo: a loss line naming no
// session right after it is a loss. make bench found it: its first loss
// line, written as the daemon started, was taken for the echo of a
// question its unreachable server never got.
func TestAQuestionUnheardHasNoEcho(t *testing.T) {
	t.Parallel()
	for _, answer := range []Observation{
		LivenessAnswered{Server: srv, Outcome: OutcomeDown, Detail: "connection refused"},
		LivenessAnswered{Server: srv, Outcome: OutcomeAlive},
	} {
		m := New(Config{HostName: "Cursor", ClientName: hostClient,
			Servers: []ServerConfig{{Name: srv, URL: "http://127.0.0.1:14242/mcp", IdleTimeout: time.Hour}}})
		m.Asking(srv, t0)
		m.Apply(answer, t0.Add(10*time.Millisecond))
		evs := m.Apply(SessionLost{LogLine: LogLine{Server: srv, Detail: "session not found"}}, t0.Add(askEcho/2))
		if find(evs, EvSessionLost) == nil {
			t.Errorf("answer %+v, then a loss line: %+v; want session_lost", answer, evs)
		}
	}
}

// A host run per prompt (Copilot CLI's `copilot -p`): each run is a new
// process; a new pid is a new run, journaled as host_up, never a
// restart; its end is the run's end.
func TestOneShotRunsAreNoRestarts(t *testing.T) {
	t.Parallel()
	m := New(Config{HostName: "Copilot CLI", ClientName: "copilot-cli", OneShot: true, HostWatched: true,
		Servers: []ServerConfig{{Name: srv, URL: "http://127.0.0.1:14242/mcp", IdleTimeout: time.Hour}}})
	var kinds []EventKind
	for i, sig := range []Observation{
		HostUp{PID: 10, Started: t0},
		HostUp{PID: 11, Started: t0.Add(time.Second), Restarted: true},
		HostDown{},
		HostUp{PID: 12, Started: t0.Add(3 * time.Second)},
	} {
		for _, ev := range m.Apply(sig, t0.Add(time.Duration(i)*time.Second)) {
			kinds = append(kinds, ev.Kind)
			if ev.Kind == EvHostDown && !strings.Contains(ev.Detail, "run (pid 11) ended") {
				t.Errorf("host_down %q; want it to say the run ended", ev.Detail)
			}
		}
	}
	want := []EventKind{EvHostUp, EvHostUp, EvHostDown, EvHostUp}
	if len(kinds) != len(want) {
		t.Fatalf("events %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("events %v, want %v: a new run is never a restart", kinds, want)
		}
	}
}
