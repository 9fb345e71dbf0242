package repro

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/variants"
)

// TestVariantsRecover: on each build derived from the real rc.8 that keeps
// the core fix's anchors, the unpatched client is STUCK after a server
// restart and the client patched with --force RECOVERS (the real
// TypeScript SDK against the real Go SDK server). Without the retry the
// first call after the loss fails, as the status says it will.
func TestVariantsRecover(t *testing.T) {
	t.Parallel()
	for _, v := range variants.All() {
		if !v.Core {
			continue // refused, unchanged: healer/clientpatch TestDerivedVariants
		}
		for _, patched := range []bool{false, true} {
			name := v.Name + "/unpatched"
			if patched {
				name = v.Name + "/patched"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				o := testOptions(t)
				o.Client, o.Derive, o.Patched, o.Loss = Real, v.Derive, patched, LossForget
				o.RecoverWithin = 3 * time.Second
				if patched {
					o.RecoverWithin = time.Minute
				}
				r, err := Run(t.Context(), o)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case !patched:
					checkStuck(t, r, o)
				case hasRetry(v):
					if r.FirstCallFailed || r.FailedCalls != 0 {
						t.Fatalf("first call after the loss failed (HTTP %d: %s); the retry is in", r.FirstCallStatus, r.FirstCallError)
					}
					checkRecovered(t, r, o)
				default:
					checkFirstCallFailed(t, r)
					checkRecovered(t, r, o)
				}
			})
		}
	}
}

func hasRetry(v variants.Variant) bool { return !strings.Contains(v.Missing, "retry") }
