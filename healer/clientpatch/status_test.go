package clientpatch

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// inspectCase is a file and the state and advice it must read as.
type inspectCase struct {
	name    string
	content []byte
	want    State
	advice  string
}

// inspectCases are files derived from the real client, each one state.
func inspectCases(t *testing.T, orig []byte) []inspectCase {
	t.Helper()
	patched, err := build(orig)
	mustDo(t, err)
	insideBlock := bytes.Replace(patched, []byte("generation.onerror = (error) => {"), []byte("generation.onerror = (err) => {"), 1)
	if bytes.Equal(insideBlock, patched) {
		t.Fatal("the onerror payload changed: edit another line of it here")
	}
	outside := bytes.Replace(patched, []byte("const GENERATION_CLOSE_TIMEOUT_MS"), []byte("const  GENERATION_CLOSE_TIMEOUT_MS"), 1)
	noEnd := bytes.Replace(patched, []byte("/* mcp-watchdog:end dispose "+Version+" */"), nil, 1)
	v1, err := buildVersion(orig, versionV1)
	mustDo(t, err)
	v2, err := buildVersion(orig, versionV2)
	mustDo(t, err)
	v3, err := buildVersion(orig, versionV3)
	mustDo(t, err)
	mixed := bytes.Replace(patched, []byte("mcp-watchdog:begin dispose "+Version+" */"), []byte("mcp-watchdog:begin dispose v1 */"), 1)
	mixed = bytes.Replace(mixed, []byte("mcp-watchdog:end dispose "+Version+" */"), []byte("mcp-watchdog:end dispose v1 */"), 1)
	unknown := bytes.ReplaceAll(patched, []byte(" "+Version+" */"), []byte(" v99 */"))
	return []inspectCase{
		{"original", orig, StateUnpatched, "watchdog patch apply"},
		{"patched", patched, StateApplied, "restart DSH"},
		{"patched by v1", v1, StateApplied, "upgrade it to " + Version},
		{"patched by v2", v2, StateApplied, "upgrades it to " + Version},
		{"patched by v3", v3, StateApplied, "upgrades it to " + Version},
		{"current blocks but a v1 dispose", mixed, StateModified, "revert --force"},
		{"a version this engine does not know", unknown, StateModified, "revert --force"},
		{"v1 with a block gone", stripPart(t, v1, "register"), StateModified, "revert --force"},
		{"unknown", append([]byte("// new build\n"), orig...), StateUnknownVersion, "--force"},
		{"edited inside a block", insideBlock, StateModified, "revert --force"},
		{"edited outside the blocks", outside, StateModified, "revert --force"},
		{"end marker gone", noEnd, StateModified, "revert --force"},
		{"a block gone", stripPart(t, patched, "register"), StateModified, "revert --force"},
		{"the retry block gone", stripPart(t, patched, "retry"), StateModified, "revert --force"},
		{"the track block gone", stripPart(t, patched, "track"), StateModified, "revert --force"},
	}
}

// TestInspectStates: each state from the file alone, and the advice.
func TestInspectStates(t *testing.T) {
	t.Parallel()
	_, orig := realClient(t)
	patched, err := build(orig)
	mustDo(t, err)
	v1, err := buildVersion(orig, versionV1)
	mustDo(t, err)
	for _, tc := range inspectCases(t, orig) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.want != StateUnpatched && tc.want != StateApplied && (bytes.Equal(tc.content, orig) || bytes.Equal(tc.content, patched)) {
				t.Fatal("the test's edit did not apply")
			}
			p := filepath.Join(t.TempDir(), "index.js")
			mustDo(t, os.WriteFile(p, tc.content, 0o644))
			st, err := Inspect(p, InspectOptions{Home: t.TempDir()})
			mustDo(t, err)
			if st.State != tc.want || !strings.Contains(st.Advice, tc.advice) || st.Digest != digest(tc.content) {
				t.Fatalf("got %s (%q), want %s with advice mentioning %q", st.State, st.Advice, tc.want, tc.advice)
			}
			if (st.State == StateApplied) != st.Trigger {
				t.Fatalf("trigger %v in state %s", st.Trigger, st.State)
			}
			if wantRetry := st.State == StateApplied && !bytes.Equal(tc.content, v1); st.Retry != wantRetry {
				t.Fatalf("retry %v (version %q), want %v", st.Retry, st.Version, wantRetry)
			}
		})
	}
}

// stripPart removes one part's marked block.
func stripPart(t testing.TB, content []byte, name string) []byte {
	t.Helper()
	begin := bytes.Index(content, []byte("/* mcp-watchdog:begin "+name))
	end := regexp.MustCompile(`/\* mcp-watchdog:end ` + name + ` v[0-9]+ \*/\n`).FindIndex(content)
	if begin < 0 || end == nil {
		t.Fatalf("no %s block", name)
	}
	begin = bytes.LastIndexByte(content[:begin], '\n') + 1 // with its indentation
	return append(append([]byte{}, content[:begin]...), content[end[1]:]...)
}

// TestRevertCases: what revert does in each state.
func TestRevertCases(t *testing.T) {
	t.Parallel()
	revertWithoutBackups(t)
	t.Run("modified needs force, then gets the newest known backup", func(t *testing.T) {
		t.Parallel()
		p, orig := realClient(t)
		o := opts(t)
		_, err := Install(p, o)
		mustDo(t, err)
		edited := append(readFile(t, p), "// a user's edit\n"...)
		mustDo(t, os.WriteFile(p, edited, 0o644))
		if _, err := Revert(p, o); !errors.Is(err, ErrModified) {
			t.Fatalf("err %v, want ErrModified", err)
		}
		if !bytes.Equal(readFile(t, p), edited) {
			t.Fatal("a refused revert changed the file")
		}
		if _, err := Install(p, o); !errors.Is(err, ErrModified) {
			t.Fatalf("apply over a modified patch: %v, want ErrModified", err)
		}
		o.Force = true
		st, err := Revert(p, o)
		mustDo(t, err)
		if !bytes.Equal(readFile(t, p), orig) || st.State != StateUnpatched {
			t.Fatalf("forced revert: %+v", st)
		}
	})
	t.Run("an unpatched file is left alone", func(t *testing.T) {
		t.Parallel()
		p, orig := realClient(t)
		info1, _ := os.Stat(p)
		st, err := Revert(p, opts(t))
		mustDo(t, err)
		info2, _ := os.Stat(p)
		if !bytes.Equal(readFile(t, p), orig) || !os.SameFile(info1, info2) || st.State != StateUnpatched {
			t.Fatalf("%+v", st)
		}
	})
	t.Run("the backup of another version is not used", func(t *testing.T) {
		t.Parallel()
		p, orig := realClient(t)
		o := opts(t)
		_, err := Install(p, o)
		mustDo(t, err)
		// A newer backup holding another (forced) original must not be
		// restored into this file.
		other := append([]byte("// other\n"), orig...)
		_, err = backups{dir: filepath.Join(o.Home, backupDir)}.save(other, "/elsewhere/index.js", o.Now().Add(1e12))
		mustDo(t, err)
		_, err = Revert(p, o)
		mustDo(t, err)
		if !bytes.Equal(readFile(t, p), orig) {
			t.Fatal("reverted to the wrong backup")
		}
	})
}

// revertWithoutBackups: the cases of TestRevertCases where the backup
// folder is gone.
func revertWithoutBackups(t *testing.T) {
	t.Run("without backups a known original is rebuilt", func(t *testing.T) {
		t.Parallel()
		p, orig := realClient(t)
		o := opts(t)
		_, err := Install(p, o)
		mustDo(t, err)
		mustDo(t, os.RemoveAll(filepath.Join(o.Home, backupDir)))
		_, err = Revert(p, o)
		mustDo(t, err)
		if !bytes.Equal(readFile(t, p), orig) {
			t.Fatal("not byte-identical")
		}
	})
	t.Run("a forced patch without its backup is refused", func(t *testing.T) {
		t.Parallel()
		p, orig := realClient(t)
		other := append([]byte("// other\n"), orig...)
		mustDo(t, os.WriteFile(p, other, 0o644))
		o := opts(t)
		o.Force = true
		_, err := Install(p, o)
		mustDo(t, err)
		mustDo(t, os.RemoveAll(filepath.Join(o.Home, backupDir)))
		before := readFile(t, p)
		// Without its backup the forced base cannot be told from an edit.
		o.Force = false
		if _, err := Revert(p, o); !errors.Is(err, ErrModified) {
			t.Fatalf("err %v, want ErrModified", err)
		}
		o.Force = true
		if _, err := Revert(p, o); !errors.Is(err, ErrNoBackup) {
			t.Fatalf("forced: err %v, want ErrNoBackup", err)
		}
		if !bytes.Equal(readFile(t, p), before) {
			t.Fatal("a refused revert changed the file")
		}
	})
}

func TestKnownBase(t *testing.T) {
	t.Parallel()
	mid := strings.Repeat("0", 64-len(prodPrefix)-len(prodSuffix))
	tests := []struct {
		digest string
		known  bool
	}{
		{digestRC8, true},
		{digestStandIn, true},
		{prodPrefix + mid + prodSuffix, true},
		{prodPrefix + mid + "f5de", false},
		{"758d8fc5" + mid + prodSuffix, false},
		{prodPrefix + prodSuffix, false},
		{"", false},
	}
	for _, tc := range tests {
		if _, ok := knownBase(tc.digest); ok != tc.known {
			t.Errorf("knownBase(%q) = %v, want %v", tc.digest, ok, tc.known)
		}
	}
}
