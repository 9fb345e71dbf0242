package clientpatch

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/testbed/variants"
)

// TestDerivedVariants: on builds derived from the real rc.8 that nobody
// fitted the patch to, status names what apply would put in and what not;
// without --force apply refuses; with it, a build with the core fix's
// anchors is patched (once: a second apply changes nothing) and reverts
// byte for byte, and a build without them is refused and left untouched.
// The real client's recovery on each is TestVariantsRecover in
// internal/testbed/repro.
func TestDerivedVariants(t *testing.T) {
	t.Parallel()
	_, orig := realClient(t)
	for _, v := range variants.All() {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			p, _ := copyClient(t, t.TempDir())
			derived := v.Derive(orig)
			mustDo(t, os.WriteFile(p, derived, 0o644))
			nodeCheckOK(t, p)
			o := opts(t)
			checkVariantStatus(t, p, o, v)
			if _, err := Install(p, o); !errors.Is(err, ErrUnknownVersion) {
				t.Fatalf("apply without --force: %v, want ErrUnknownVersion", err)
			}
			o.Force = true
			st, err := Install(p, o)
			if !v.Core {
				if !errors.Is(err, ErrAnchorsMissing) {
					t.Fatalf("apply --force: %v, want ErrAnchorsMissing", err)
				}
				unchanged(t, p, derived, o.Home)
				return
			}
			mustDo(t, err)
			if st.State != StateApplied || !strings.HasPrefix(featureNames(st.Present), FeatureCore) || featureNames(st.Missing) != v.Missing {
				t.Fatalf("applied: state %s, present %q, missing %q (want %q)", st.State, featureNames(st.Present), featureNames(st.Missing), v.Missing)
			}
			nodeCheckOK(t, p)
			patched := readFile(t, p)
			if st, err = Install(p, o); err != nil || !bytes.Equal(readFile(t, p), patched) || len(backupDirs(t, o.Home)) != 1 {
				t.Fatalf("second apply: %+v, %v; unchanged %v", st, err, bytes.Equal(readFile(t, p), patched))
			}
			if _, err := Revert(p, o); err != nil || !bytes.Equal(readFile(t, p), derived) {
				t.Fatalf("revert: %v; byte-identical %v", err, bytes.Equal(readFile(t, p), derived))
			}
		})
	}
}

// checkVariantStatus: before any apply, status says the build is unknown,
// which features would go in and which would not (each with its anchor
// and cost), and, without the core fix, that the patch cannot help.
func checkVariantStatus(t *testing.T, p string, o InstallOptions, v variants.Variant) {
	t.Helper()
	st, err := Inspect(p, InspectOptions{Home: o.Home})
	mustDo(t, err)
	if st.State != StateUnknownVersion {
		t.Fatalf("state %s, want %s", st.State, StateUnknownVersion)
	}
	for _, m := range st.Missing {
		if m.Missed == "" || m.Without == "" || m.Gives == "" {
			t.Fatalf("missing %s does not say its anchor, its cost and its gain: %+v", m.Name, m)
		}
	}
	if !v.Core {
		if len(st.WouldApply) != 0 || len(st.Missing) == 0 || st.Missing[0].Name != FeatureCore || !strings.Contains(st.Advice, "cannot help") {
			t.Fatalf("no core: would apply %q, missing %q, advice %q", featureNames(st.WouldApply), featureNames(st.Missing), st.Advice)
		}
		return
	}
	if !strings.HasPrefix(featureNames(st.WouldApply), FeatureCore) || featureNames(st.Missing) != v.Missing {
		t.Fatalf("would apply %q, missing %q (want %q)", featureNames(st.WouldApply), featureNames(st.Missing), v.Missing)
	}
}
