package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// backupDir is where the patch keeps originals under the home directory
// (DSH's profile says so; pinned here as users know it).
const backupDir = ".dsh/backups/dsh-mcp-client-pre-onerror-fix"

// realClientModule copies the real dsh-mcp-client (lib/index.js and its
// package.json, so "type": "module" applies) into a temp folder.
func realClientModule(t *testing.T) (string, []byte) {
	t.Helper()
	return releaseModule(t, "real")
}

// releaseModule copies a fetched release (testdata/dshclient/<folder>:
// "real" is rc.8, others "real-<version>") into a fresh package folder.
func releaseModule(t *testing.T, folder string) (string, []byte) {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", "dshclient", folder)
	orig, err := os.ReadFile(filepath.Join(src, "lib", "index.js"))
	if err != nil {
		t.Fatalf("the real dsh-mcp-client is missing (%v): run `make deps` (scripts/deps-dshclient.sh fetches it)", err)
	}
	pkg, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		t.Fatalf("real client package.json: %v: run `make deps`", err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), pkg, 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "lib", "index.js")
	if err := os.WriteFile(p, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, orig
}

// patchCmd prepares `watchdog patch ARGS` with home as HOME (backups).
func patchCmd(t *testing.T, home string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := watchdogCmd(t, append([]string{"patch"}, args...)...)
	// The race runtime sleeps 1 s at exit by default; these runs are many.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	cmd.Env = append(append(cmd.Env, "HOME="+home, "GORACE="+gorace), env...)
	return cmd
}

func runPatch(t *testing.T, home string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCmd(t, patchCmd(t, home, nil, args...))
}

func mustNodeCheck(t *testing.T, p string) {
	t.Helper()
	if out, err := exec.Command("node", "--check", p).CombinedOutput(); err != nil {
		t.Fatalf("node --check %s: %v\n%s", p, err, out)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPatchCommand: apply, status --json, revert through the real main,
// with the module named on the command line and in the config.
func TestPatchCommand(t *testing.T) {
	t.Parallel()
	p, orig := realClientModule(t)
	home := t.TempDir()
	code, out, errOut := runPatch(t, home, "apply", "--module", p)
	if code != exitOK || !strings.Contains(out, "module: "+p) || !strings.Contains(out, "state:  applied") || !strings.Contains(out, "restart DSH") {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	mustNodeCheck(t, p)

	cfg := daemontest.WriteConfig(t, t.TempDir(), "[host]\nclient_module = \""+p+"\"\n")
	code, out, errOut = runPatch(t, home, "status", "--json", "--config", cfg)
	var st clientpatch.Status
	if err := json.Unmarshal([]byte(out), &st); code != exitOK || err != nil {
		t.Fatalf("status --json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if st.Module != p || st.State != clientpatch.StateApplied || !st.Trigger || st.Backup == "" {
		t.Fatalf("status: %+v", st)
	}

	code, out, errOut = runPatch(t, home, "revert", "--module", p)
	if code != exitOK || !bytes.Equal(mustRead(t, p), orig) || !strings.Contains(out, "unpatched") {
		t.Fatalf("revert: exit %d, byte-identical %v\n%s%s", code, bytes.Equal(mustRead(t, p), orig), out, errOut)
	}
}

// TestPatchRefusals: bad usage and refused input are exit 2, a missing
// module exit 1, and a refused file stays as it was.
func TestPatchRefusals(t *testing.T) {
	t.Parallel()
	p, orig := realClientModule(t)
	unknown := append([]byte("// a newer build\n"), orig...)
	noAnchor := bytes.Replace(orig, []byte("generation.onclose = () => {"), []byte("generation.onclose = function() {"), 1)
	tests := []struct {
		name    string
		content []byte
		args    []string
		code    int
		stderr  string
	}{
		{"no action", orig, []string{}, exitUsage, "usage"},
		{"unknown action", orig, []string{"fix"}, exitUsage, "usage"},
		{"two actions", orig, []string{"apply", "revert"}, exitUsage, "usage"},
		{"unknown version", unknown, []string{"apply", "--module", p}, exitUsage, "--force"},
		{"core anchor missing with force", noAnchor, []string{"apply", "--force", "--module", p}, exitUsage, "the core fix cannot go in: \"generation.onclose = () => {\" found 0 times"},
		{"missing module", orig, []string{"status", "--module", filepath.Join(t.TempDir(), "index.js")}, exitFailed, "not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(p, tc.content, 0o644); err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			code, out, errOut := runPatch(t, home, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.stderr) {
				t.Fatalf("exit %d (want %d), stderr should mention %q\n%s%s", code, tc.code, tc.stderr, out, errOut)
			}
			if !bytes.Equal(mustRead(t, p), tc.content) {
				t.Fatal("a refused command changed the module")
			}
			if _, err := os.Stat(filepath.Join(home, backupDir, "..", "..")); err == nil && tc.code == exitUsage && len(tc.args) > 1 {
				if entries, _ := os.ReadDir(filepath.Join(home, backupDir)); countDirs(entries) > 0 {
					t.Fatal("a refused apply made a backup")
				}
			}
		})
	}
}

func countDirs(entries []os.DirEntry) int {
	n := 0
	for _, e := range entries {
		if e.IsDir() {
			n++
		}
	}
	return n
}

// TestPatchApplySurvivesKill9: `watchdog patch apply` killed with SIGKILL
// at random moments leaves the original or the fully patched file, never
// anything else (node --check passes either way), and the next apply
// cleans up what the killed one left and makes no second backup.
func TestPatchApplySurvivesKill9(t *testing.T) {
	t.Parallel()
	// One undisturbed run: the patched bytes, and how long a run takes.
	ref, orig := realClientModule(t)
	start := time.Now()
	if out, err := patchCmd(t, t.TempDir(), nil, "apply", "--module", ref).CombinedOutput(); err != nil {
		t.Fatalf("reference apply: %v\n%s", err, out)
	}
	took := time.Since(start)
	patched := mustRead(t, ref)
	mustNodeCheck(t, ref)
	if bytes.Equal(patched, orig) {
		t.Fatal("the reference apply changed nothing")
	}

	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 4))
	t.Logf("seed %d; an undisturbed apply takes %s", seed, took)
	var keptOrig, gotPatched, midway int
	for i := range 30 {
		p, _ := realClientModule(t)
		home := t.TempDir()
		cmd := patchCmd(t, home, nil, "apply", "--module", p)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(took + took/5))))
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()

		got := mustRead(t, p)
		switch {
		case bytes.Equal(got, orig):
			keptOrig++
		case bytes.Equal(got, patched):
			gotPatched++
		default:
			t.Fatalf("kill #%d left a file that is neither the original nor the patched one", i)
		}
		mustNodeCheck(t, p)
		if leftovers(t, filepath.Dir(p), home) {
			midway++
		}

		applyAfterKill(t, i, home, p, patched)
	}
	t.Logf("after SIGKILL: %d original, %d patched; %d killed midway (temp file or partial backup left)", keptOrig, gotPatched, midway)
	if midway == 0 && keptOrig == 0 {
		t.Fatal("no kill landed before the apply finished; the test did not test anything")
	}
}

// applyAfterKill: the apply after kill #i finishes the job on module p,
// tidies up and keeps one backup in home.
func applyAfterKill(t *testing.T, i int, home, p string, patched []byte) {
	t.Helper()
	if out, err := patchCmd(t, home, nil, "apply", "--module", p).CombinedOutput(); err != nil {
		t.Fatalf("apply after kill #%d: %v\n%s", i, err, out)
	}
	if !bytes.Equal(mustRead(t, p), patched) {
		t.Fatalf("apply after kill #%d: not the patched bytes", i)
	}
	if leftovers(t, filepath.Dir(p), home) {
		t.Fatalf("apply after kill #%d left temp files or a partial backup", i)
	}
	backups, _ := os.ReadDir(filepath.Join(home, backupDir))
	if n := countDirs(backups); n != 1 {
		t.Fatalf("after kill #%d and an apply: %d backups, want 1", i, n)
	}
}

// leftovers reports temp files of ours beside the module or half-written
// backups.
func leftovers(t *testing.T, dir, home string) bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".mcp-watchdog-") {
			return true
		}
	}
	backups, _ := os.ReadDir(filepath.Join(home, backupDir))
	for _, e := range backups {
		if strings.HasPrefix(e.Name(), ".partial-") {
			return true
		}
	}
	return false
}

// TestPatchUpgrade: a module patched by an older version reads as such
// (v1: "no retry"); `patch apply` upgrades it to the current version and
// revert still gives the original back.
func TestPatchUpgrade(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ from, says string }{{"v1", "no retry"}, {"v2", "upgrades it to v4"}, {"v3", "upgrades it to v4"}} {
		t.Run(tc.from, func(t *testing.T) {
			t.Parallel()
			checkUpgrade(t, tc.from, tc.says)
		})
	}
}

func checkUpgrade(t *testing.T, from, says string) {
	p, orig := realClientModule(t)
	home := t.TempDir()
	if _, err := clientpatch.Install(p, clientpatch.InstallOptions{Home: home, Version: from}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runPatch(t, home, "status", "--module", p)
	if code != exitOK || !strings.Contains(out, "applied (patch "+from) || !strings.Contains(out, says) || !strings.Contains(out, "to "+clientpatch.Version) {
		t.Fatalf("status of a %s module: exit %d\n%s%s", from, code, out, errOut)
	}
	code, out, errOut = runPatch(t, home, "apply", "--module", p)
	if code != exitOK || !strings.Contains(out, "upgraded from patch "+from+" to "+clientpatch.Version) {
		t.Fatalf("apply over %s: exit %d\n%s%s", from, code, out, errOut)
	}
	mustNodeCheck(t, p)
	code, out, errOut = runPatch(t, home, "status", "--json", "--module", p)
	var st clientpatch.Status
	if err := json.Unmarshal([]byte(out), &st); code != exitOK || err != nil {
		t.Fatalf("status --json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if st.State != clientpatch.StateApplied || st.Version != clientpatch.Version || !st.Retry || !slices.Contains(st.Parts, "track "+clientpatch.Version) {
		t.Fatalf("after the upgrade: %+v", st)
	}
	code, out, errOut = runPatch(t, home, "revert", "--module", p)
	if code != exitOK || !bytes.Equal(mustRead(t, p), orig) {
		t.Fatalf("revert after the upgrade: exit %d, byte-identical %v\n%s%s", code, bytes.Equal(mustRead(t, p), orig), out, errOut)
	}
}

// TestPatchSaysWhichRelease: rc.7 and rc.8 share one lib/index.js, told
// apart by the package.json beside it; 0.0.1-rc.1 never reconnects, and
// status and apply say plainly that the patch cannot help it and what
// still does.
func TestPatchSaysWhichRelease(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	p, _ := releaseModule(t, "real-0.1.0-rc.7")
	code, out, errOut := runPatch(t, home, "status", "--module", p)
	if code != exitOK || !strings.Contains(out, "unpatched: dsh-mcp-client 0.1.0-rc.7 has the session-loss bug") {
		t.Fatalf("status of rc.7: exit %d\n%s%s", code, out, errOut)
	}
	p, orig := releaseModule(t, "real-0.0.1-rc.1")
	code, out, errOut = runPatch(t, home, "status", "--module", p)
	if code != exitOK || !strings.Contains(out, "unsupported: dsh-mcp-client 0.0.1-rc.1 never reconnects") ||
		!strings.Contains(out, "cannot help") || !strings.Contains(out, "keep-warm") || !strings.Contains(out, "restarting DSH") {
		t.Fatalf("status of rc.1: exit %d\n%s%s", code, out, errOut)
	}
	for _, args := range [][]string{{"apply", "--module", p}, {"apply", "--force", "--module", p}} {
		code, out, errOut = runPatch(t, home, args...)
		if code != exitUsage || !strings.Contains(errOut, "cannot be fixed by the patch") || !bytes.Equal(mustRead(t, p), orig) {
			t.Fatalf("%v on rc.1: exit %d, unchanged %v\n%s%s", args, code, bytes.Equal(mustRead(t, p), orig), out, errOut)
		}
	}
}

// TestPatchPartsOnADerivedBuild: on a build without the retry's anchor,
// status (text and --json) lists what would go in and what not, with the
// anchor missed and the cost; apply --force puts in the rest.
func TestPatchPartsOnADerivedBuild(t *testing.T) {
	t.Parallel()
	p, orig := realClientModule(t)
	derived := bytes.ReplaceAll(orig, []byte("callToolUncached"), []byte("requestToolCall"))
	if err := os.WriteFile(p, derived, 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	code, out, errOut := runPatch(t, home, "status", "--module", p)
	if code != exitOK || !strings.Contains(out, "core     would go in: a lost session") ||
		!strings.Contains(out, `retry    missing ("function callToolUncached(client, rawName, args, exec, opts) {" found 0 times, want once): the first call after a loss fails`) {
		t.Fatalf("status: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runPatch(t, home, "apply", "--force", "--json", "--module", p)
	var st clientpatch.Status
	if err := json.Unmarshal([]byte(out), &st); code != exitOK || err != nil {
		t.Fatalf("apply --force --json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if len(st.Present) != 3 || st.Present[0].Name != "core" || len(st.Missing) != 1 || st.Missing[0].Name != "retry" || st.Missing[0].Without == "" {
		t.Fatalf("present %+v, missing %+v", st.Present, st.Missing)
	}
	code, out, errOut = runPatch(t, home, "status", "--module", p)
	if code != exitOK || !strings.Contains(out, "applied in part (patch "+clientpatch.Version+": core, trigger, dispose; not in: retry)") {
		t.Fatalf("status after apply: exit %d\n%s%s", code, out, errOut)
	}
}
