package soak

import (
	"slices"
	"testing"
	"time"
)

func TestPlanIsSeededAndCoversEveryFault(t *testing.T) {
	o := PlanOptions{Seed: 7, Duration: 3 * time.Minute, Servers: []string{"a", "b", "c"}, Warmup: 10 * time.Second, Cooldown: 15 * time.Second}
	p1, p2 := Plan(o), Plan(o)
	if !slices.Equal(p1, p2) {
		t.Fatal("the same seed gave two schedules")
	}
	o.Seed = 8
	if slices.Equal(p1, Plan(o)) {
		t.Fatal("two seeds gave the same schedule")
	}
	kinds, modes := map[FaultKind]int{}, map[string]int{}
	for i, f := range p1 {
		kinds[f.Kind]++
		if f.Kind == FaultLogRotate || f.Kind == FaultStoreRewrite {
			modes[f.Mode]++
		}
		if f.At < o.Warmup || f.At >= o.Duration-o.Cooldown {
			t.Fatalf("fault %d at %s outside the fault window", i, f.At)
		}
		if i > 0 && f.At < p1[i-1].At {
			t.Fatalf("schedule not sorted at %d", i)
		}
		if f.Kind == FaultJournalFail && (f.Pause < 2*time.Second || f.Pause > 6*time.Second) {
			t.Fatalf("journal failure %d lasts %s, want 2-6 s", i, f.Pause)
		}
	}
	for _, k := range FaultKinds() {
		if kinds[k] == 0 {
			t.Errorf("no %s in a 3-minute schedule: %v", k, kinds)
		}
	}
	for _, m := range append(slices.Clone(RotateModes), "atomic", "halves") {
		if modes[m] == 0 {
			t.Errorf("mode %s never drawn: %v", m, modes)
		}
	}
}
