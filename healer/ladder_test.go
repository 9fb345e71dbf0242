package healer

import (
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

func TestLadder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     LadderInput
		want   health.Strategy
		advice string
	}{
		{"trigger first", LadderInput{Patch: PatchTrigger, AutoRestart: true, CanRestart: true}, StrategyClientRecovery, ""},
		{"patched reconnects by itself", LadderInput{Patch: PatchApplied, CanRestart: true, UserAsked: true}, StrategyReconnect, ""},
		{"unpatched, auto restart", LadderInput{Patch: PatchUnpatched, AutoRestart: true, CanRestart: true}, StrategyHostRestart, ""},
		{"unpatched, user asks", LadderInput{Patch: PatchUnknown, UserAsked: true, CanRestart: true}, StrategyHostRestart, ""},
		{"unpatched, no restart allowed", LadderInput{Patch: PatchUnpatched, CanRestart: true, HostName: "DSH"}, "", "watchdog patch apply"},
		{"no restart command", LadderInput{Patch: PatchUnpatched, UserAsked: true, HostName: "DSH"}, "", "no host.restart"},
		{"unsupported build, user asks", LadderInput{Patch: PatchUnsupported, UserAsked: true, CanRestart: true}, StrategyHostRestart, ""},
		{"unsupported build, no restart allowed", LadderInput{Patch: PatchUnsupported, HostName: "DSH"}, "", "no patch can change that: restart DSH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Next(tt.in)
			if got.Strategy != tt.want || !strings.Contains(got.Advice, tt.advice) {
				t.Fatalf("Next = %+v, want strategy %q advice containing %q", got, tt.want, tt.advice)
			}
		})
	}
	if s := AfterFailure(StrategyClientRecovery, LadderInput{AutoRestart: true, CanRestart: true}); s.Strategy != StrategyHostRestart {
		t.Fatalf("after a failed trigger: %+v, want a restart", s)
	}
	if s := AfterFailure(StrategyHostRestart, LadderInput{AutoRestart: true, CanRestart: true, HostName: "DSH"}); s.Strategy != "" || !strings.Contains(s.Advice, "restart DSH") {
		t.Fatalf("after a failed restart: %+v, want to give up", s)
	}
}
