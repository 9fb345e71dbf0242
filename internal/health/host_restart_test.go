package health

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// CI at ee14767 (TestDSHWebRestartedAsLastResort): the watchdog restarted
// the host, and the process watcher saw the old process gone 35 ms before
// it saw the new one, so the new one was journaled host_up, a host that
// had just come, not host_restarted. A host the watchdog is restarting
// that goes down and comes back within the restart's time was restarted,
// in whichever order the watcher sees the two.
func TestHostRestartedByTheWatchdogInEitherOrder(t *testing.T) {
	t.Parallel()
	started := t0.Add(-time.Hour)
	up := func(pid int32) Observation { return HostUp{PID: pid, Started: started} }
	down := HostDown{}
	restarting := HealStarted{Server: srv, Strategy: StrategyHostRestart, Within: time.Minute}
	other := HealStarted{Server: srv, Strategy: "keep_warm", Within: time.Minute}
	tests := []struct {
		name  string
		steps []step
	}{
		{"the new process seen first", []step{
			{0, restarting, []EventKind{EvHealStarted}},
			{time.Second, up(11), []EventKind{EvHostRestarted}},
		}},
		{"the old one seen gone first", []step{
			{0, restarting, []EventKind{EvHealStarted}},
			{time.Second, down, []EventKind{EvHostDown}},
			{time.Second + 35*time.Millisecond, up(11), []EventKind{EvHostRestarted}},
		}},
		{"gone, and back after the restart's time: a host that came", []step{
			{0, restarting, []EventKind{EvHealStarted}},
			{time.Second, down, []EventKind{EvHostDown}},
			{2 * time.Minute, up(11), []EventKind{EvHostUp}},
		}},
		{"gone while another strategy heals: a host that came", []step{
			{0, other, []EventKind{EvHealStarted}},
			{time.Second, down, []EventKind{EvHostDown}},
			{2 * time.Second, up(11), []EventKind{EvHostUp}},
		}},
		{"the restart failed: the host started again is one that came", []step{
			{0, restarting, []EventKind{EvHealStarted}},
			{time.Second, down, []EventKind{EvHostDown}},
			{2 * time.Second, HealFailed{Server: srv, Strategy: StrategyHostRestart, Detail: "restarting DSH failed"}, []EventKind{EvHealFailed}},
			{3 * time.Second, up(11), []EventKind{EvHostUp}},
		}},
		{"the restart is told once", []step{
			{0, restarting, []EventKind{EvHealStarted}},
			{time.Second, down, []EventKind{EvHostDown}},
			{2 * time.Second, up(11), []EventKind{EvHostRestarted}},
			{3 * time.Second, down, []EventKind{EvHostDown}},
			{4 * time.Second, up(12), []EventKind{EvHostUp}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newTestModel(time.Hour)
			m.Apply(up(10), t0)
			runSteps(t, m, tc.steps)
		})
	}
}

// What the journal says of it: the old process stopped for the restart,
// the new one with the pid it replaced.
func TestHostRestartedByTheWatchdogSaysSo(t *testing.T) {
	t.Parallel()
	m := newTestModel(time.Hour)
	m.Apply(HostUp{PID: 10, Started: t0}, t0)
	m.Apply(HealStarted{Server: srv, Strategy: StrategyHostRestart, Within: time.Minute}, t0)
	evs := m.Apply(HostDown{}, t0.Add(time.Second))
	evs = append(evs, m.Apply(HostUp{PID: 11, Started: t0.Add(time.Second)}, t0.Add(2*time.Second))...)
	if !slices.Equal(kinds(evs), []EventKind{EvHostDown, EvHostRestarted}) {
		t.Fatalf("events %v", kinds(evs))
	}
	if d := evs[0].Detail; !strings.Contains(d, "pid 10") || !strings.Contains(d, "restarting") {
		t.Errorf("host_down %q: want the old pid and that the watchdog is restarting it", d)
	}
	if d := evs[1].Detail; !strings.Contains(d, "pid 11, was 10") {
		t.Errorf("host_restarted %q: want the new pid and the one it replaced", d)
	}
}
