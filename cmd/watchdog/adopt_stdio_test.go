package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
)

// TestAdoptedStdioServerRunsUnderWatchdogStdio: `watchdog hosts adopt`
// points a Codex stdio server's command at a wrapper; run as the host runs
// it (its arguments, its environment), the wrapper starts the real
// `watchdog stdio`, which starts the server with those arguments and
// starts it again when it dies; release gives the file back byte for byte.
func TestAdoptedStdioServerRunsUnderWatchdogStdio(t *testing.T) {
	t.Parallel()
	home, state, dir := t.TempDir(), t.TempDir(), t.TempDir()
	starts := filepath.Join(dir, "starts")
	// The server: notes each start and its arguments; its first run dies at once.
	server := filepath.Join(dir, "my server", "mem-mcp")
	script := "#!/bin/sh\nprintf '%s|' \"$@\" >> '" + starts + "'\necho >> '" + starts + "'\n" +
		"[ \"$(wc -l < '" + starts + "')\" -ge 2 ] || exit 3\nexec cat > /dev/null\n"
	stdioMust(t, os.MkdirAll(filepath.Dir(server), 0o755))
	stdioMust(t, os.WriteFile(server, []byte(script), 0o755))
	file := filepath.Join(home, ".codex", "config.toml")
	orig := "[mcp_servers.mem]\ncommand = '" + server + "'\nargs = [\"a b\", \"it's\"]\n"
	stdioMust(t, os.MkdirAll(filepath.Dir(file), 0o700))
	stdioMust(t, os.WriteFile(file, []byte(orig), 0o600))
	env := []string{"HOME=" + home, "WATCHDOG_STATE_DIR=" + state, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	if code, out, errOut := runWatchdogEnv(t, env, "hosts", "adopt", "Codex CLI", "--no-autostart"); code != 0 || !strings.Contains(out, "now runs under `watchdog stdio`") {
		t.Fatalf("adopt exit %d: %s %s", code, out, errOut)
	}
	ss, err := hostfile.Servers(hostfile.TOML, readFile(t, file), host.CodexCLI().Layout)
	if err != nil || len(ss) != 1 || !strings.HasPrefix(ss[0].Command, filepath.Join(state, "wrappers")+string(filepath.Separator)) {
		t.Fatalf("after adopt: %+v %v\n%s", ss, err, readFile(t, file))
	}
	hostRun := exec.Command(ss[0].Command, ss[0].Args...)
	hostRun.Env = []string{"PATH=/usr/bin:/bin", asBinary + "=1", "GORACE=atexit_sleep_ms=0", "HOME=" + home}
	stdin, err := hostRun.StdinPipe()
	stdioMust(t, err)
	stdioMust(t, hostRun.Start())
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(string(readFileOr(starts)), "\n") < 2 {
		if time.Now().After(deadline) {
			_ = hostRun.Process.Kill()
			t.Fatalf("the server was not started again after it died; starts:\n%s", readFileOr(starts))
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = stdin.Close()
	if err := hostRun.Wait(); err != nil {
		t.Logf("the wrapper ended: %v", err)
	}
	if got := string(readFileOr(starts)); got != "a b|it's|\na b|it's|\n" {
		t.Fatalf("the server's starts and arguments:\n%q", got)
	}
	if code, out, errOut := runWatchdogEnv(t, env, "hosts", "release", "Codex CLI"); code != 0 || string(readFile(t, file)) != orig {
		t.Fatalf("release exit %d: %s %s\n%s", code, out, errOut, readFile(t, file))
	}
}

func stdioMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	stdioMust(t, err)
	return b
}

func readFileOr(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}
