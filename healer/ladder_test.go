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
		{"unpatched: the patch, or the proxy", LadderInput{Patch: PatchUnpatched, HostName: "DSH", Adopt: "watchdog hosts adopt DSH"}, "",
			"run `watchdog patch apply` and restart DSH, or route DSH through the watchdog's proxy (`watchdog hosts adopt DSH`)"},
		{"a host with no patch: the proxy only", LadderInput{Patch: PatchNone, HostName: "Cursor", Adopt: "watchdog hosts adopt Cursor"}, "",
			"Cursor keeps the dead session: route Cursor through the watchdog's proxy (`watchdog hosts adopt Cursor`)"},
		{"a host with no patch, user asks", LadderInput{Patch: PatchNone, UserAsked: true, CanRestart: true}, StrategyHostRestart, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Next(tt.in)
			if tt.in.Patch == PatchNone && strings.Contains(got.Advice, "patch") {
				t.Fatalf("a host with no patch is told of one: %q", got.Advice)
			}
			if got.Strategy != tt.want || !strings.Contains(got.Advice, tt.advice) {
				t.Fatalf("Next = %+v, want strategy %q advice containing %q", got, tt.want, tt.advice)
			}
		})
	}
}

// TestOneShotHostIsNeverToldToRestart: a host run per prompt has nothing
// to restart; its advice is its next run and the proxy.
func TestOneShotHostIsNeverToldToRestart(t *testing.T) {
	t.Parallel()
	in := LadderInput{Patch: PatchNone, OneShot: true, HostName: "Copilot CLI", Adopt: "watchdog hosts adopt 'Copilot CLI'"}
	if s := Next(in); s.Strategy != "" || strings.Contains(s.Advice, "restart") || !strings.Contains(s.Advice, "next run") ||
		!strings.Contains(s.Advice, in.Adopt) {
		t.Errorf("step %+v; want advice naming its next run and the proxy, never a restart", s)
	}
}
