package clientpatch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestApplyRevertRealClient: the round trip on the real client.
func TestApplyRevertRealClient(t *testing.T) {
	t.Parallel()
	p, orig := realClient(t)
	o := opts(t)
	st, err := Install(p, o)
	mustDo(t, err)
	if st.State != StateApplied || !st.Trigger || !st.Retry || st.Version != Version || st.BaseDigest != digestRC8 ||
		st.Base != "dsh-mcp-client 0.1.0-rc.8" || st.Package != "0.1.0-rc.8" {
		t.Fatalf("after apply: %+v", st)
	}
	wantParts := []string{"retry " + Version, "module " + Version, "onerror " + Version, "track " + Version, "register " + Version, "dispose " + Version}
	if !slices.Equal(st.Parts, wantParts) {
		t.Fatalf("parts %v, want %v", st.Parts, wantParts)
	}
	if got := featureNames(st.Present); got != "core, trigger, retry, dispose" || len(st.Missing) != 0 {
		t.Fatalf("features present %q, missing %+v", got, st.Missing)
	}
	if !strings.Contains(st.Advice, "restart DSH") || !strings.Contains(st.Advice, "reinstalling") {
		t.Fatalf("apply advice does not remind of the restart and of reinstalls: %q", st.Advice)
	}
	patched := readFile(t, p)
	nodeCheckOK(t, p)
	if got := readFile(t, st.Backup); !bytes.Equal(got, orig) {
		t.Fatalf("backup %s is not the original", st.Backup)
	}
	if !strings.HasPrefix(st.Backup, filepath.Join(o.Home, ".dsh", "backups", "dsh-mcp-client-pre-onerror-fix")+string(filepath.Separator)) {
		t.Fatalf("backup at %s", st.Backup)
	}
	if st2, err := Inspect(p, InspectOptions{Home: o.Home}); err != nil || st2.State != StateApplied || st2.Digest != digest(patched) {
		t.Fatalf("inspect after apply: %+v, %v", st2, err)
	}

	st, err = Revert(p, o)
	mustDo(t, err)
	if got := readFile(t, p); !bytes.Equal(got, orig) {
		t.Fatal("revert is not byte-identical to the original")
	}
	if st.State != StateUnpatched || st.Digest != digestRC8 || !strings.Contains(st.Advice, "restart DSH") {
		t.Fatalf("after revert: %+v", st)
	}
	if s := strayTemps(t, filepath.Dir(p)); len(s) > 0 {
		t.Fatalf("temp files left: %v", s)
	}
}

// TestPatchOnlyInserts: the patched file is the original plus six marked
// blocks at their anchors, indented like them, and nothing else.
func TestPatchOnlyInserts(t *testing.T) {
	t.Parallel()
	_, orig := realClient(t)
	patched, err := build(orig)
	mustDo(t, err)
	rest, found, ok := strip(patched)
	if !ok || !bytes.Equal(rest, orig) || len(found) != 6 {
		t.Fatalf("strip(build(x)) != x (ok %v, %d parts)", ok, len(found))
	}
	lines := strings.Split(string(patched), "\n")
	want := map[string]struct{ next, prev, indent string }{
		"module":   {next: "function startConnection(ctx, config, policy) {"},
		"onerror":  {next: beginMarker("track", Version), indent: "\t\t"},
		"track":    {next: "generation.onclose = () => {", indent: "\t\t"},
		"register": {prev: "let settling = connectGeneration(true);", indent: "\t"},
		"dispose":  {prev: "disposed = true;", indent: "\t\t\t"},
		"retry":    {prev: "function callToolUncached(client, rawName, args, exec, opts) {", next: "return client.request({", indent: "\t"},
	}
	for i, l := range lines {
		m := markerRE.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		w := want[m[2]]
		if got := l[:len(l)-len(strings.TrimLeft(l, "\t "))]; got != w.indent {
			t.Errorf("%s marker indented %q, want %q", m[2], got, w.indent)
		}
		if m[1] == "begin" && w.prev != "" && strings.TrimSpace(lines[i-1]) != w.prev {
			t.Errorf("%s block follows %q, want %q", m[2], lines[i-1], w.prev)
		}
		if m[1] == "end" && w.next != "" && strings.TrimSpace(lines[i+1]) != w.next {
			t.Errorf("%s block precedes %q, want %q", m[2], lines[i+1], w.next)
		}
	}
}

// TestApplyTwice: a second apply changes no byte and makes no backup.
func TestApplyTwice(t *testing.T) {
	t.Parallel()
	p, _ := realClient(t)
	o := opts(t)
	_, err := Install(p, o)
	mustDo(t, err)
	first := readFile(t, p)
	info1, _ := os.Stat(p)
	st, err := Install(p, o)
	mustDo(t, err)
	info2, _ := os.Stat(p)
	if !bytes.Equal(readFile(t, p), first) || !os.SameFile(info1, info2) {
		t.Fatal("a second apply rewrote the file")
	}
	if st.State != StateApplied || !strings.Contains(st.Advice, "already applied") {
		t.Fatalf("second apply: %+v", st)
	}
	if b := backupDirs(t, o.Home); len(b) != 1 {
		t.Fatalf("backups %v, want exactly one", b)
	}
	// Revert and apply again: still one backup, the same bytes.
	_, err = Revert(p, o)
	mustDo(t, err)
	_, err = Install(p, o)
	mustDo(t, err)
	if !bytes.Equal(readFile(t, p), first) {
		t.Fatal("apply after revert gave other bytes")
	}
	if b := backupDirs(t, o.Home); len(b) != 1 {
		t.Fatalf("backups %v after re-apply, want one", b)
	}
}

// TestUnknownVersion: refused without Force, untouched; with Force and all
// anchors there, applied, reported applied (its backup is its base) and
// reverted byte for byte.
func TestUnknownVersion(t *testing.T) {
	t.Parallel()
	p, orig := realClient(t)
	other := append([]byte("// a build the patch does not know\n"), orig...)
	mustDo(t, os.WriteFile(p, other, 0o644))
	o := opts(t)
	st, err := Install(p, o)
	if !errors.Is(err, ErrUnknownVersion) || st.State != StateUnknownVersion {
		t.Fatalf("apply of an unknown file: %+v, %v", st, err)
	}
	unchanged(t, p, other, o.Home)

	o.Force = true
	st, err = Install(p, o)
	mustDo(t, err)
	if st.State != StateApplied || st.BaseDigest != digest(other) {
		t.Fatalf("forced apply: %+v", st)
	}
	nodeCheckOK(t, p)
	if st, _ := Inspect(p, InspectOptions{}); st.State != StateModified {
		t.Fatalf("without the backups a forced patch cannot be told from an edit; got %s", st.State)
	}
	o.Force = false
	_, err = Revert(p, o)
	mustDo(t, err)
	if !bytes.Equal(readFile(t, p), other) {
		t.Fatal("revert of a forced apply is not byte-identical")
	}
}

// TestForceWithoutAnchors: with Force, a build whose anchors differ gets
// every feature whose anchors are found exactly once, and the status names
// each one left out; without the core fix's anchors the edit is refused and
// the file left untouched.
func TestForceWithoutAnchors(t *testing.T) {
	t.Parallel()
	_, orig := realClient(t)
	const refused = "refused"
	tests := []struct{ name, line, repl, missing string }{
		{"no startConnection", "function startConnection(ctx, config, policy) {", "function startConnection2 (ctx, config, policy) {", ""},
		{"no onclose", "generation.onclose = () => {", "generation.addEventListener(\"close\", () => {", refused},
		{"two oncloses", "closeObserved = true;", "generation.onclose = () => {", refused},
		{"its own onerror", "closeObserved = true;", "generation.onerror = () => {};", refused},
		{"no settling", "let settling = connectGeneration(true);", "let settling = connectGeneration(!0);", "trigger, dispose"},
		{"two settlings", "const hasClosed = () => closeObserved;", "let settling = connectGeneration(true);", "trigger, dispose"},
		{"no dispose", "async dispose() {", "async close() {", "dispose"},
		{"dispose flag moved", "disposed = true;", "void 0; disposed = true;", "dispose"},
		{"callToolUncached renamed its parameters", "function callToolUncached(client, rawName, args, exec, opts) {", "function callToolUncached(client, rawName, args, exec, options) {", "retry"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, _ := copyClient(t, t.TempDir())
			bad := replaceLine(t, orig, tc.line, tc.repl)
			mustDo(t, os.WriteFile(p, bad, 0o644))
			o := opts(t)
			o.Force = true
			st, err := Install(p, o)
			if tc.missing == refused {
				if !errors.Is(err, ErrAnchorsMissing) || !strings.Contains(err.Error(), "the core fix cannot go in") {
					t.Fatalf("err %v, want ErrAnchorsMissing for the core fix", err)
				}
				unchanged(t, p, bad, o.Home)
				return
			}
			mustDo(t, err)
			if st.State != StateApplied || featureNames(st.Missing) != tc.missing || !slices.Contains(namesOf(st.Present), FeatureCore) {
				t.Fatalf("state %s, present %q, missing %q; want missing %q", st.State, featureNames(st.Present), featureNames(st.Missing), tc.missing)
			}
			for _, m := range st.Missing {
				if m.Missed == "" || m.Without == "" {
					t.Fatalf("missing %s says no anchor or cost: %+v", m.Name, m)
				}
			}
			nodeCheckOK(t, p)
			if _, err := Revert(p, o); err != nil || !bytes.Equal(readFile(t, p), bad) {
				t.Fatalf("revert: %v; byte-identical %v", err, bytes.Equal(readFile(t, p), bad))
			}
		})
	}
}

func namesOf(fs []FeatureStatus) []string {
	return strings.Split(featureNames(fs), ", ")
}

// TestNodeCheckGuards: a failing or missing node stops the write.
func TestNodeCheckGuards(t *testing.T) {
	t.Parallel()
	for _, node := range []string{"false", filepath.Join(t.TempDir(), "no-node")} {
		p, orig := realClient(t)
		o := opts(t)
		o.Node = node
		_, err := Install(p, o)
		if !errors.Is(err, ErrNodeCheck) {
			t.Fatalf("node %s: err %v, want ErrNodeCheck", node, err)
		}
		if !bytes.Equal(readFile(t, p), orig) || len(strayTemps(t, filepath.Dir(p))) > 0 {
			t.Fatalf("node %s: file changed or temp left", node)
		}
	}
}

// TestTempParsesAsESM: a temp file named like ours, beside the module,
// is parsed by node as ESM under the package's "type": "module" (a
// top-level return, legal only in CommonJS, is rejected there) and as
// CommonJS under "type": "commonjs", so `node --check` judges the patched
// file exactly as Node will load it.
func TestTempParsesAsESM(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{"module", "commonjs"} {
		dir := t.TempDir()
		mustDo(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type":"`+typ+`"}`), 0o644))
		f, err := os.CreateTemp(dir, tempPrefix+"*"+tempSuffix)
		mustDo(t, err)
		_, err = f.WriteString("const x = 1;\nreturn;\n")
		mustDo(t, errors.Join(err, f.Close()))
		err = nodeCheck("node", f.Name())
		if esm := typ == "module"; esm != (err != nil) {
			t.Fatalf(`"type": %q: node --check %s gave %v`, typ, filepath.Base(f.Name()), err)
		}
	}
}

// TestStaleLeftoversCleaned: temp files and half-written backups a killed
// run left are removed by the next apply; other files are not touched.
func TestStaleLeftoversCleaned(t *testing.T) {
	t.Parallel()
	p, _ := realClient(t)
	o := opts(t)
	dir := filepath.Dir(p)
	stale := filepath.Join(dir, tempPrefix+"123456"+tempSuffix)
	mustDo(t, os.WriteFile(stale, []byte("half a fi"), 0o644))
	keep := []string{filepath.Join(dir, tempPrefix+"notes.txt"), filepath.Join(dir, "invariant.js")}
	for _, k := range keep {
		mustDo(t, os.WriteFile(k, []byte("x"), 0o644))
	}
	partial := filepath.Join(o.Home, backupDir, partialPrefix+"99")
	mustDo(t, os.MkdirAll(partial, 0o700))
	_, err := Install(p, o)
	mustDo(t, err)
	for _, gone := range []string{stale, partial} {
		if _, err := os.Stat(gone); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind", gone)
		}
	}
	for _, k := range keep {
		if _, err := os.Stat(k); err != nil {
			t.Errorf("%s removed: %v", k, err)
		}
	}
}

// TestApplyFollowsSymlink: a symlinked module is patched in its real place
// and the link stays a link.
func TestApplyFollowsSymlink(t *testing.T) {
	t.Parallel()
	p, _ := realClient(t)
	link := filepath.Join(t.TempDir(), "index.js")
	mustDo(t, os.Symlink(p, link))
	st, err := Install(link, opts(t))
	mustDo(t, err)
	if st.State != StateApplied || st.Module != p {
		t.Fatalf("%+v", st)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced")
	}
}

// TestApplyKeepsMode: the patched file keeps the original's permissions.
func TestApplyKeepsMode(t *testing.T) {
	t.Parallel()
	p, _ := realClient(t)
	mustDo(t, os.Chmod(p, 0o444))
	_, err := Install(p, opts(t))
	mustDo(t, err)
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o444 {
		t.Fatalf("mode %v, want 0444", fi.Mode().Perm())
	}
}

func TestMissingModule(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "lib", "index.js")
	for name, fn := range map[string]func(string, InstallOptions) (Status, error){"apply": Install, "revert": Revert} {
		st, err := fn(p, opts(t))
		if !errors.Is(err, ErrNotFound) || st.State != StateNotFound {
			t.Errorf("%s: %+v, %v", name, st, err)
		}
	}
	if st, err := Inspect(p, InspectOptions{}); !errors.Is(err, ErrNotFound) || st.State != StateNotFound || st.Advice == "" {
		t.Errorf("inspect: %+v, %v", st, err)
	}
}

// TestReplacedDuringApply: a file replaced (say, by a reinstall) while
// the apply runs is not overwritten with a patch of the old bytes. The
// reinstall lands while the apply checks its temp file: the Node it is
// given is a wrapper that replaces the module, then runs the real check.
func TestReplacedDuringApply(t *testing.T) {
	t.Parallel()
	p, orig := realClient(t)
	newer := append([]byte("// reinstalled\n"), orig...)
	reinstall := filepath.Join(t.TempDir(), "reinstall")
	mustDo(t, os.WriteFile(reinstall, newer, 0o644))
	node, err := exec.LookPath("node")
	mustDo(t, err)
	wrapper := filepath.Join(t.TempDir(), "node")
	script := fmt.Sprintf("#!/bin/sh\ncp %q %q\nexec %q \"$@\"\n", reinstall, p, node)
	mustDo(t, os.WriteFile(wrapper, []byte(script), 0o755))
	o := opts(t)
	o.Node = wrapper
	if _, err := Install(p, o); err == nil || !strings.Contains(err.Error(), "changed during the apply") {
		t.Fatalf("err %v", err)
	}
	if !bytes.Equal(readFile(t, p), newer) || len(strayTemps(t, filepath.Dir(p))) > 0 {
		t.Fatal("the reinstalled file was overwritten, or a temp file was left")
	}
}

// TestUpgradeFromOlderVersions: a file patched by an older version reads
// as applied at that version (v1 without the retry); apply swaps in the
// current version (the same bytes as a fresh apply), keeps the one backup
// of the original, and revert still gives the original back.
func TestUpgradeFromOlderVersions(t *testing.T) {
	t.Parallel()
	for _, from := range []string{versionV1, versionV2, versionV3} {
		for _, forced := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/forced=%v", from, forced), func(t *testing.T) {
				t.Parallel()
				checkUpgrade(t, from, forced)
			})
		}
	}
}

func checkUpgrade(t *testing.T, from string, forced bool) {
	p, orig := realClient(t)
	if forced {
		orig = append([]byte("// a build the patch does not know\n"), orig...)
	}
	o := opts(t)
	o.Force = forced
	mustDo(t, os.WriteFile(p, orig, 0o644))
	o.Version = from
	_, err := Install(p, o)
	mustDo(t, err)
	o.Version = ""
	old, err := buildVersion(orig, from)
	mustDo(t, err)
	if !bytes.Equal(readFile(t, p), old) {
		t.Fatalf("InstallOptions.Version %s did not write the %s patch", from, from)
	}
	st, err := Inspect(p, InspectOptions{Home: o.Home})
	mustDo(t, err)
	if st.State != StateApplied || st.Version != from || st.Retry != (from != versionV1) || !st.Trigger ||
		!strings.Contains(st.Advice, "watchdog patch apply") || !strings.Contains(st.Advice, "to "+Version) {
		t.Fatalf("%s file: %+v", from, st)
	}
	o.Force = false // an upgrade needs no --force, even on a forced base
	st, err = Install(p, o)
	mustDo(t, err)
	want, err := build(orig)
	mustDo(t, err)
	if !bytes.Equal(readFile(t, p), want) || st.Version != Version || !st.Retry || !strings.Contains(st.Advice, "upgraded from patch "+from+" to "+Version) {
		t.Fatalf("after the upgrade: %+v (bytes of a fresh %s apply: %v)", st, Version, bytes.Equal(readFile(t, p), want))
	}
	nodeCheckOK(t, p)
	if b := backupDirs(t, o.Home); len(b) != 1 || !bytes.Equal(readFile(t, st.Backup), orig) {
		t.Fatalf("backups %v, want the one original", b)
	}
	_, err = Revert(p, o)
	mustDo(t, err)
	if !bytes.Equal(readFile(t, p), orig) {
		t.Fatal("revert after the upgrade is not the original")
	}
}
