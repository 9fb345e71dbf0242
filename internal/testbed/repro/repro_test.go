package repro

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testOptions are short enough for the test budget and generous enough for
// a loaded 2-core machine: nothing here asserts a speed.
func testOptions(t *testing.T) Options {
	t.Helper()
	return Options{
		IdleTimeout:      2 * time.Second,
		ReconnectInitial: 100 * time.Millisecond,
		ConfirmWithin:    time.Minute,
		Home:             t.TempDir(),
	}
}

// patchState is one column of the reproduction: no patch, the first patch
// version (v1: the fix without the retry), the current one.
type patchState struct {
	name             string
	patched, noRetry bool
}

var patchStates = []patchState{{"unpatched", false, false}, {"v1", true, true}, {"current", true, false}}

// TestReproduction is the proof: against both real servers, with both the
// stand-in and the real npm client, the unpatched client stays STUCK after
// the session is lost; the v1 patch RECOVERS after the first call after
// the loss failed with 404; the current patch retries that call once on the
// new session, so it succeeds: no call fails, with no watchdog running.
func TestReproduction(t *testing.T) {
	t.Parallel()
	for _, srv := range []ServerKind{GoSDK, TSSDK} {
		for _, cl := range []ClientKind{StandIn, Real} {
			for _, ps := range patchStates {
				if ps.noRetry && cl == StandIn {
					continue // v1 is shown on the real client; the package's time budget is tight
				}
				t.Run(fmt.Sprintf("%s/%s/%s", srv, cl, ps.name), func(t *testing.T) {
					t.Parallel()
					o := testOptions(t)
					o.Server, o.Client, o.Patched, o.NoRetry = srv, cl, ps.patched, ps.noRetry
					// Long enough for a loaded machine to reconnect; the unpatched
					// client never does, so its window only costs time.
					o.RecoverWithin = 3 * time.Second
					if ps.patched {
						o.RecoverWithin = time.Minute
					}
					r, err := Run(t.Context(), o)
					if err != nil {
						t.Fatal(err)
					}
					switch {
					case !ps.patched:
						checkFirstCallFailed(t, r)
						checkStuck(t, r, o)
					case ps.noRetry:
						checkFirstCallFailed(t, r)
						checkRecovered(t, r, o)
					default:
						if r.FirstCallFailed || r.FailedCalls != 0 {
							t.Fatalf("first call after the loss failed (HTTP %d: %s), %d failed calls; want it retried on the new session",
								r.FirstCallStatus, r.FirstCallError, r.FailedCalls)
						}
						checkRecovered(t, r, o)
					}
				})
			}
		}
	}
}

func checkFirstCallFailed(t *testing.T, r Result) {
	t.Helper()
	if !r.FirstCallFailed || r.FirstCallStatus != 404 {
		t.Errorf("first call after the loss: failed %v, HTTP %d (%s); want a 404 failure",
			r.FirstCallFailed, r.FirstCallStatus, r.FirstCallError)
	}
}

// TestRevertedIsStuckAgain: apply then revert gives the original bytes
// back, and the bug with them.
func TestRevertedIsStuckAgain(t *testing.T) {
	t.Parallel()
	o := testOptions(t)
	o.Reverted, o.RecoverWithin = true, 3*time.Second
	r, err := Run(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	checkStuck(t, r, o)
}

func checkStuck(t *testing.T, r Result, o Options) {
	t.Helper()
	if r.Verdict != Stuck || r.FailedCalls < 2 {
		t.Fatalf("verdict %s after %d failed calls, want STUCK after several", r.Verdict, r.FailedCalls)
	}
	if r.Beacon != nil {
		t.Errorf("the unpatched client wrote a beacon: %+v", *r.Beacon)
	}
	if _, err := os.Stat(filepath.Join(o.Home, ".dsh", "mcp-watchdog")); !os.IsNotExist(err) {
		t.Errorf("the unpatched client touched ~/.dsh/mcp-watchdog: %v", err)
	}
}

func checkRecovered(t *testing.T, r Result, o Options) {
	t.Helper()
	if r.Verdict != Recovered || r.RecoveredAfter <= 0 {
		t.Fatalf("verdict %s (recovered after %v), want RECOVERED", r.Verdict, r.RecoveredAfter)
	}
	if r.NewSession == "" || r.NewSession == r.LostSession {
		t.Errorf("no new session on the server after recovery")
	}
	checkBeacon(t, r, o)
}

// checkBeacon: the patched client published the new session, 0600, and
// removed its beacon when the host quit.
func checkBeacon(t *testing.T, r Result, o Options) {
	t.Helper()
	if r.Beacon == nil {
		t.Fatal("no beacon from the patched client")
	}
	if r.Beacon.Mode != 0o600 {
		t.Errorf("beacon mode %v, want 0600", r.Beacon.Mode)
	}
	s, ok := r.Beacon.Server(r.ServerName)
	if !ok || len(r.Beacon.Servers) != 1 {
		t.Fatalf("beacon has %d entries, want one for %q", len(r.Beacon.Servers), r.ServerName)
	}
	if s.URL != r.URL || s.State != "connected" || s.SessionID != r.NewSession {
		t.Errorf("beacon entry url %q state %q new session %v; want %q connected with the server's new session",
			s.URL, s.State, s.SessionID == r.NewSession, r.URL)
	}
	if _, err := time.Parse(time.RFC3339Nano, s.ConnectedSince); err != nil {
		t.Errorf("connected_since %q: %v", s.ConnectedSince, err)
	}
	if !r.BeaconRemoved {
		t.Error("the beacon was left behind after the host quit")
	}
	left, err := os.ReadDir(filepath.Join(o.Home, ".dsh", "mcp-watchdog", "clients"))
	if err != nil || len(left) != 0 {
		t.Errorf("clients dir after quit: %v, %v; want it empty", names(left), err)
	}
}

// TestTriggerFirstCallSucceeds stands in for the watchdog: it sees the
// server lose the session, writes the recovery trigger, and the user's
// first call after the loss succeeds on the new session.
func TestTriggerFirstCallSucceeds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		srv ServerKind
		cl  ClientKind
	}{{GoSDK, StandIn}, {TSSDK, StandIn}, {GoSDK, Real}}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%s", tc.srv, tc.cl), func(t *testing.T) {
			t.Parallel()
			o := testOptions(t)
			o.Server, o.Client, o.Patched, o.Trigger, o.Loss = tc.srv, tc.cl, true, true, LossForget
			// Patch v1: without the retry part the first call succeeds only
			// because the trigger healed the session before it (v2's trigger
			// is the same code, exercised by TestBeaconSharedAndTriggersTargeted).
			o.NoRetry = true
			r, err := Run(t.Context(), o)
			if err != nil {
				t.Fatal(err)
			}
			if !r.TriggerConfirmed {
				t.Fatal("the beacon never showed a new session after the trigger")
			}
			if r.FirstCallFailed || r.FailedCalls != 0 || r.Verdict != Recovered {
				t.Fatalf("first call failed %v (%s), %d failed calls, verdict %s; want no failure",
					r.FirstCallFailed, r.FirstCallError, r.FailedCalls, r.Verdict)
			}
			checkBeacon(t, r, o)
			trigger := filepath.Join(o.Home, ".dsh", "mcp-watchdog", "recover", r.ServerName)
			if _, err := os.Stat(trigger); !os.IsNotExist(err) {
				t.Errorf("the trigger file was not consumed: %v", err)
			}
		})
	}
}

func names(entries []fs.DirEntry) string {
	var s []string
	for _, e := range entries {
		s = append(s, e.Name())
	}
	return strings.Join(s, " ")
}

// TestUnpatchedThroughProxy: the real client, unpatched, reaches each
// server through the watchdog's proxy; neither an idle expiry nor a
// restart that forgets every session fails a call.
func TestUnpatchedThroughProxy(t *testing.T) {
	t.Parallel()
	for _, srv := range []ServerKind{GoSDK, TSSDK} {
		for _, loss := range []LossMode{LossIdle, LossForget} {
			t.Run(fmt.Sprintf("%s/%s", srv, loss), func(t *testing.T) {
				t.Parallel()
				o := testOptions(t)
				o.Server, o.Client, o.Loss, o.Proxy = srv, Real, loss, true
				r, err := Run(t.Context(), o)
				if err != nil {
					t.Fatal(err)
				}
				if r.FirstCallFailed || r.FailedCalls != 0 {
					t.Fatalf("through the proxy the first call after the loss failed (HTTP %d: %s), %d failed calls; want none",
						r.FirstCallStatus, r.FirstCallError, r.FailedCalls)
				}
				if r.Verdict != Recovered || r.NewSession == "" || r.NewSession == r.LostSession {
					t.Fatalf("verdict %s; want RECOVERED on a new upstream session", r.Verdict)
				}
			})
		}
	}
}
