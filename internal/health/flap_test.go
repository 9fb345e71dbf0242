package health

import (
	"strings"
	"testing"
	"time"
)

var (
	lossLine      = SessionLost{LogLine: LogLine{Server: srv, Detail: "Session not found"}}
	reconnectLine = Reconnected{LogLine: LogLine{Server: srv, Detail: "Reconnected to MCP server"}}
)

// Issue 15, measured: a flood of loss and reconnect lines made an incident
// per pair. Past flapLimit incidents within flapWindow the session is
// flapping: one incident, counting every round, that ends once calm.
func TestFlappingIsOneIncident(t *testing.T) {
	t.Parallel()
	m := newTestModel(time.Hour)
	var lost, recovered []Event
	at := time.Duration(0)
	for range 1000 {
		for _, sig := range []Observation{lossLine, reconnectLine} {
			for _, ev := range m.Apply(sig, t0.Add(at)) {
				switch ev.Kind {
				case EvSessionLost:
					lost = append(lost, ev)
				case EvRecovered:
					recovered = append(recovered, ev)
				}
			}
			at += 10 * time.Millisecond
		}
	}
	if len(lost) != flapLimit+1 || len(recovered) != flapLimit {
		t.Fatalf("1000 rounds: %d lost, %d recovered; want %d and %d", len(lost), len(recovered), flapLimit+1, flapLimit)
	}
	if f := lost[flapLimit]; f.Extra["flapping"] != true || !strings.Contains(f.Detail, "flapping") {
		t.Fatalf("the incident that starts flapping: %+v", f)
	}
	calm := t0.Add(at - 10*time.Millisecond) // the last reconnect
	if evs := m.Tick(calm.Add(flapQuiet - time.Second)); len(evs) != 0 {
		t.Fatalf("before the quiet time: %+v", evs)
	}
	evs := m.Tick(calm.Add(flapQuiet))
	if len(evs) != 1 || evs[0].Kind != EvRecovered {
		t.Fatalf("once calm: %+v, want one recovered", evs)
	}
	if got := evs[0].Extra["losses"]; got != 1000-flapLimit {
		t.Errorf("losses counted %v, want %d", got, 1000-flapLimit)
	}
	if as[Recovery](evs[0]).Took != calm.Sub(lost[flapLimit].Time) {
		t.Errorf("took %s, want from the first flapping loss to the last recovery", as[Recovery](evs[0]).Took)
	}
	// Calm again: the next loss is an incident of its own.
	if evs := m.Apply(lossLine, calm.Add(flapWindow+flapQuiet)); len(evs) != 1 || evs[0].Extra["flapping"] == true {
		t.Fatalf("a loss after the flapping ended: %+v", evs)
	}
}

// Losses told again while the incident is open are counted on its
// recovery, not journaled one by one.
func TestRepeatedLossIsCountedIntoItsIncident(t *testing.T) {
	t.Parallel()
	m := newTestModel(time.Hour)
	runSteps(t, m, []step{
		{0, lossLine, []EventKind{EvSessionLost}},
		{time.Second, lossLine, nil},
		{2 * time.Second, lossLine, nil},
	})
	evs := m.Apply(reconnectLine, t0.Add(3*time.Second))
	if len(evs) != 1 || evs[0].Extra["loss_reports"] != 3 {
		t.Fatalf("recovered %+v, want loss_reports 3", evs)
	}
}

// A host-log loss naming no server, with two servers, repeated: one event
// a minute, the repeats counted into the next.
func TestUnplacedLossFloodIsOneEventAMinute(t *testing.T) {
	t.Parallel()
	m := New(Config{HostName: "DSH", ClientName: hostClient,
		Servers: []ServerConfig{{Name: "a", URL: "http://127.0.0.1:1/mcp"}, {Name: "b", URL: "http://127.0.0.1:2/mcp"}}})
	sig := SessionLost{LogLine: LogLine{HostLog: true, Detail: "Session not found"}}
	var evs []Event
	for i := range 600 {
		evs = append(evs, m.Apply(sig, t0.Add(time.Duration(i)*100*time.Millisecond))...)
	}
	if len(evs) != 1 {
		t.Fatalf("a minute of the same line: %d events, want 1", len(evs))
	}
	next := m.Apply(sig, t0.Add(time.Minute))
	if len(next) != 1 || next[0].Extra["repeats_before"] != 599 {
		t.Fatalf("the next minute: %+v, want one event counting 599 repeats", next)
	}
}
