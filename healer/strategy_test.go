package healer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// fakeActions records what the ladder's strategies did, one line a call.
type fakeActions struct {
	home       string
	homeErr    error
	restartErr error
	did        []string
}

func (f *fakeActions) Started(_ context.Context, server string, s health.Strategy, within time.Duration, _ string) {
	f.did = append(f.did, fmt.Sprintf("started %s %s within %s", server, s, within))
}

func (f *fakeActions) Failed(_ context.Context, server string, s health.Strategy, detail string) {
	f.did = append(f.did, fmt.Sprintf("failed %s %q: %s", server, s, detail))
}

func (f *fakeActions) TriggerDir() (string, error) {
	return filepath.Join(f.home, triggerDir), f.homeErr
}

func (f *fakeActions) Now() time.Time { return time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC) }

func (f *fakeActions) RestartHost(_ context.Context, server string) error {
	f.did = append(f.did, "restart "+server)
	return f.restartErr
}

// The table is whole: names unique and set, each entry able to decide and
// to run, and StrategyNames in its order.
func TestStrategiesTable(t *testing.T) {
	t.Parallel()
	seen := map[health.Strategy]bool{}
	for _, s := range Strategies() {
		if s.Name == "" || seen[s.Name] || s.Applies == nil || s.Run == nil {
			t.Errorf("entry %+v: want a unique name, Applies and Run", s)
		}
		seen[s.Name] = true
	}
	var names []health.Strategy
	for _, s := range Strategies() {
		names = append(names, s.Name)
	}
	if !slices.Equal(StrategyNames(), names) {
		t.Errorf("StrategyNames = %v, want %v", StrategyNames(), names)
	}
	if !seen[health.StrategyReconnect] {
		t.Errorf("the model's own strategy %q is not in the table: metrics would count its recoveries as other", health.StrategyReconnect)
	}
}

// Heal runs what the ladder picks, turns to the restart when a strategy
// cannot start, and says why it gives up.
func TestHeal(t *testing.T) {
	t.Parallel()
	auto := LadderInput{AutoRestart: true, CanRestart: true, HostName: "DSH"}
	with := func(p PatchState, in LadderInput) LadderInput { in.Patch = p; return in }
	tests := []struct {
		name  string
		in    LadderInput
		act   fakeActions
		taken health.Strategy
		did   []string // prefixes, in order
	}{
		{"trigger", with(PatchTrigger, auto), fakeActions{}, StrategyClientRecovery,
			[]string{"started mem client_recovery within 10s"}},
		{"trigger cannot be written, restart", with(PatchTrigger, auto), fakeActions{homeErr: errors.New("no $HOME")},
			StrategyClientRecovery, []string{`failed mem "client_recovery": cannot trigger the client's recovery: no $HOME`, "restart mem"}},
		{"trigger cannot be written, restart refused", with(PatchTrigger, auto),
			fakeActions{homeErr: errors.New("no $HOME"), restartErr: errors.New("not restarting DSH now")},
			StrategyClientRecovery, []string{`failed mem "client_recovery"`, "restart mem", `failed mem "host_restart": not restarting DSH now`}},
		{"trigger cannot be written, no restart allowed", with(PatchTrigger, LadderInput{}), fakeActions{homeErr: errors.New("no $HOME")},
			StrategyClientRecovery, []string{`failed mem "client_recovery"`}},
		{"patched: wait for the reconnect", with(PatchApplied, auto), fakeActions{}, StrategyReconnect,
			[]string{"started mem reconnect within 0s"}},
		{"unpatched: restart", with(PatchUnpatched, auto), fakeActions{}, StrategyHostRestart, []string{"restart mem"}},
		{"unpatched, restart refused: tried once", with(PatchUnpatched, auto), fakeActions{restartErr: errors.New("limited")},
			StrategyHostRestart, []string{"restart mem", `failed mem "host_restart": limited`}},
		{"unpatched, no restart: give up with advice", LadderInput{Patch: PatchUnpatched, HostName: "DSH"}, fakeActions{}, "",
			[]string{`failed mem "": mem cannot heal itself: the client is not patched`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			act := tt.act
			if act.home == "" && act.homeErr == nil {
				act.home = t.TempDir()
			}
			if got := Heal(context.Background(), &act, "mem", tt.in); got != tt.taken {
				t.Errorf("Heal = %q, want %q", got, tt.taken)
			}
			if len(act.did) != len(tt.did) {
				t.Fatalf("did %q, want %q", act.did, tt.did)
			}
			for i := range tt.did {
				if !strings.HasPrefix(act.did[i], tt.did[i]) {
					t.Fatalf("did %q, want %q", act.did, tt.did)
				}
			}
		})
	}
}

// The trigger strategy writes the trigger the patched client watches.
func TestHealWritesTheTrigger(t *testing.T) {
	t.Parallel()
	act := &fakeActions{home: t.TempDir()}
	Heal(context.Background(), act, "mem", LadderInput{Patch: PatchTrigger})
	entries, err := os.ReadDir(filepath.Join(act.home, triggerDir))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no trigger in %s: %v %v", filepath.Join(act.home, triggerDir), entries, err)
	}
}
