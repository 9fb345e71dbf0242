package health

import (
	"testing"
	"time"
)

// The soak caught a recovery claimed on a session a killed server's store
// still listed: the server was known down (a liveness request refused),
// and the restarted daemon read the dead instance's store, whose new host
// session the beacon named. While the server is down, a listed session
// created before it went down proves nothing until it answers a ping.
func TestNoRecoveryOnAStoreOfAServerThatIsDown(t *testing.T) {
	t.Parallel()
	m := newTestModel(time.Hour)
	host := sess("host-session-0001", hostClient, t0, t0)
	host2 := sess("host-session-0002", hostClient, t0.Add(1500*time.Millisecond), t0.Add(1500*time.Millisecond))
	steps := []step{
		{0, snap(host), nil},
		{time.Second, SessionLost{LogLine: LogLine{Server: srv, Detail: "Session not found"}}, []EventKind{EvSessionLost}},
		{2 * time.Second, LivenessAnswered{Server: srv, Outcome: OutcomeDown, Detail: "connection refused"}, []EventKind{EvServerDown}},
		{time.Minute, snap(host, host2), []EventKind{EvSessionNew}},
	}
	runSteps(t, m, steps)
	v := m.Verify(t0.Add(time.Minute))
	if len(v) != 1 || v[0].SessionID != host2.ID {
		t.Fatalf("verify %+v; want the new session to answer first", v)
	}
	evs := m.Apply(KeepWarmAnswered{Server: srv, Session: host2.ID, Outcome: OutcomeAlive}, t0.Add(61*time.Second))
	if find(evs, EvRecovered) == nil {
		t.Fatalf("the new session answered: %v, want recovered", kinds(evs))
	}
}

// A session created after the server stopped answering was made by a
// server that lives: it is the recovery at once, down or not.
func TestASessionCreatedSinceTheServerWentDownRecovers(t *testing.T) {
	t.Parallel()
	host := sess("host-session-0001", hostClient, t0, t0)
	host2 := sess("host-session-0002", hostClient, t0.Add(time.Minute), t0.Add(time.Minute))
	runSteps(t, newTestModel(time.Hour), []step{
		{0, snap(host), nil},
		{time.Second, SessionLost{LogLine: LogLine{Server: srv, Detail: "Session not found"}}, []EventKind{EvSessionLost}},
		{2 * time.Second, LivenessAnswered{Server: srv, Outcome: OutcomeDown, Detail: "connection refused"}, []EventKind{EvServerDown}},
		{time.Minute, snap(host, host2), []EventKind{EvSessionNew, EvRecovered}},
	})
}
