package clientpatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// DSH's discovery paths and backup folder as they were when they moved to
// its host profile, pinned here: a change there that moves them fails
// these tests.
const (
	hoisted   = "@deepseek-ai/dsh-mcp-client/lib/index.js"
	nested    = "@deepseek-ai/dsh/node_modules/@deepseek-ai/dsh-mcp-client/lib/index.js"
	backupDir = ".dsh/backups/dsh-mcp-client-pre-onerror-fix"
)

// dsh is the target the zero options mean.
func dsh() target { return targetOf(host.Profile{}) }

// realDir is where scripts/deps-dshclient.sh (run by `make deps`) puts the
// real @deepseek-ai/dsh-mcp-client package.
func realDir(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "dshclient", "real")
}

// realClient copies the real client's lib/index.js and its package.json
// (so "type": "module" applies) into a fresh folder and returns the path of
// the copy's lib/index.js and its bytes.
func realClient(t testing.TB) (string, []byte) {
	t.Helper()
	return copyClient(t, t.TempDir())
}

func copyClient(t testing.TB, dir string) (string, []byte) {
	t.Helper()
	src := realDir(t)
	orig, err := os.ReadFile(filepath.Join(src, "lib", "index.js"))
	if err != nil {
		t.Fatalf("the real dsh-mcp-client is missing (%v): run `make deps` (scripts/deps-dshclient.sh fetches it)", err)
	}
	if got := digest(orig); got != digestRC8 {
		t.Fatalf("testdata/dshclient/real/lib/index.js has sha256 %s, want %s: run `FORCE=1 make deps`", got, digestRC8)
	}
	pkg, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		t.Fatalf("real client package.json: %v: run `make deps`", err)
	}
	mustDo(t, os.MkdirAll(filepath.Join(dir, "lib"), 0o755))
	mustDo(t, os.WriteFile(filepath.Join(dir, "package.json"), pkg, 0o644))
	p := filepath.Join(dir, "lib", "index.js")
	mustDo(t, os.WriteFile(p, orig, 0o644))
	return p, orig
}

// opts are test apply options: backups in a fresh home, a fixed clock.
func opts(t testing.TB) InstallOptions {
	t.Helper()
	at := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	return InstallOptions{Home: t.TempDir(), Now: func() time.Time { at = at.Add(time.Second); return at }}
}

func mustDo(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	mustDo(t, err)
	return b
}

// nodeCheckOK fails the test when node does not parse the file.
func nodeCheckOK(t testing.TB, p string) {
	t.Helper()
	out, err := exec.Command("node", "--check", p).CombinedOutput()
	if err != nil {
		t.Fatalf("node --check %s: %v\n%s", p, err, out)
	}
}

// backupDirs lists backup folders, partial ones included.
func backupDirs(t testing.TB, home string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(home, backupDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	mustDo(t, err)
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// strayTemps lists files of ours left in dir.
func strayTemps(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	mustDo(t, err)
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// unchanged asserts a refused call left the module as it was.
func unchanged(t testing.TB, p string, want []byte, home string) {
	t.Helper()
	if got := readFile(t, p); !bytes.Equal(got, want) {
		t.Fatalf("%s changed although the call was refused", p)
	}
	if s := strayTemps(t, filepath.Dir(p)); len(s) > 0 {
		t.Fatalf("temp files left: %v", s)
	}
	if b := backupDirs(t, home); len(b) > 0 {
		t.Fatalf("a refused call made backups: %v", b)
	}
}

// replaceLine swaps the one line whose trimmed text is old.
func replaceLine(t testing.TB, content []byte, old, repl string) []byte {
	t.Helper()
	lines := strings.Split(string(content), "\n")
	n := 0
	for i, l := range lines {
		if strings.TrimSpace(l) == old {
			lines[i], n = repl, n+1
		}
	}
	if n != 1 {
		t.Fatalf("line %q found %d times", old, n)
	}
	return []byte(strings.Join(lines, "\n"))
}

// Child process: the read-only test runs Install as another user.
const childEnv = "CLIENTPATCH_TEST_CHILD"

type childResult struct {
	Err      string
	ReadOnly bool
}

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "apply" {
		_, err := Install(os.Args[1], InstallOptions{Home: os.Args[2]})
		res := childResult{ReadOnly: errors.Is(err, ErrReadOnly)}
		if err != nil {
			res.Err = err.Error()
		}
		_ = json.NewEncoder(os.Stdout).Encode(res)
		return
	}
	os.Exit(m.Run())
}

// copySelf copies this test binary into dir, where another user can run it.
func copySelf(t testing.TB, dir string) string {
	t.Helper()
	self, err := os.Executable()
	mustDo(t, err)
	src, err := os.Open(self)
	mustDo(t, err)
	defer src.Close()
	bin := filepath.Join(dir, "clientpatch.test")
	dst, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	mustDo(t, err)
	_, err = io.Copy(dst, src)
	mustDo(t, errors.Join(err, dst.Close()))
	return bin
}

func runChild(t testing.TB, cmd *exec.Cmd) childResult {
	t.Helper()
	var out, errb bytes.Buffer
	err := runRetryingBusy(cmd, &out, &errb)
	if err != nil {
		t.Fatalf("child: %v\n%s", err, errb.String())
	}
	var res childResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("child output %q: %v (stderr %s)", out.String(), err, errb.String())
	}
	return res
}

// runRetryingBusy runs a copy of cmd, again while exec says "text file
// busy": a parallel test that forks while copySelf's file is still open
// for writing holds it open in its child until that child execs.
func runRetryingBusy(cmd *exec.Cmd, stdout, stderr *bytes.Buffer) error {
	for try := 0; ; try++ {
		c := exec.Command(cmd.Path, cmd.Args[1:]...)
		c.Env, c.Dir, c.SysProcAttr = cmd.Env, cmd.Dir, cmd.SysProcAttr
		c.Stdout, c.Stderr = stdout, stderr
		err := c.Run()
		if !errors.Is(err, syscall.ETXTBSY) || try == 50 {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}
