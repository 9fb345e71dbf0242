package probe

import (
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/testbed/tsmodern"
)

// The real modern-only server (the TypeScript SDK v2, legacy: 'reject'):
// server/discover lists only 2026-07-28 and initialize gets 400 -32022, so
// the probe says modern-only, no session, and that a legacy host needs the
// proxy's bridge.
func TestRunModernOnly(t *testing.T) {
	t.Parallel()
	srv := tsmodern.Start(t, tsmodern.Options{})
	r, err := Run(testCtx(t), newClient(t, srv.URL()))
	if err != nil {
		t.Fatalf("Run: %v; notes %q", err, r.Notes)
	}
	want(t, r.Era == EraModernOnly && !r.Stateful && !r.SessionLeft, r)
	want(t, len(r.SupportedVersions) == 1 && r.SupportedVersions[0] == "2026-07-28", r)
	want(t, hasNote(r, "initialize is not served") && hasNote(r, "bridges the eras"), r)
}
