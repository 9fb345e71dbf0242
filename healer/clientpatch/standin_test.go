package clientpatch

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestStandIn: the reproduction's stand-in client (testdata/dshclient) is
// a known base, and the patch applies to it and reverts byte for byte.
func TestStandIn(t *testing.T) {
	t.Parallel()
	src := filepath.Join(realDir(t), "..")
	orig, err := os.ReadFile(filepath.Join(src, "lib", "index.js"))
	if err != nil {
		t.Fatalf("the stand-in client testdata/dshclient/lib/index.js is missing: %v", err)
	}
	if d := digest(orig); d != digestStandIn {
		t.Fatalf("testdata/dshclient/lib/index.js changed: set digestStandIn in healer/clientpatch/bases.go to %q", d)
	}
	pkg, err := os.ReadFile(filepath.Join(src, "package.json"))
	mustDo(t, err)
	dir := t.TempDir()
	mustDo(t, os.Mkdir(filepath.Join(dir, "lib"), 0o755))
	mustDo(t, os.WriteFile(filepath.Join(dir, "package.json"), pkg, 0o644))
	p := filepath.Join(dir, "lib", "index.js")
	mustDo(t, os.WriteFile(p, orig, 0o644))

	o := opts(t)
	st, err := Inspect(p, InspectOptions{Home: o.Home})
	mustDo(t, err)
	if st.State != StateUnpatched {
		t.Fatalf("stand-in reads as %s", st.State)
	}
	if st, err = Install(p, o); err != nil || st.State != StateApplied {
		t.Fatalf("apply: %+v, %v", st, err)
	}
	nodeCheckOK(t, p)
	if _, err = Revert(p, o); err != nil || !bytes.Equal(readFile(t, p), orig) {
		t.Fatalf("revert: %v (byte-identical: %v)", err, bytes.Equal(readFile(t, p), orig))
	}
}
