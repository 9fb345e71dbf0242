package adopt

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// argvRecorder is a script that writes each of its arguments, and the
// variable MEM_KEY, on a line of its own to the file out.
func argvRecorder(t *testing.T, path, out string) {
	t.Helper()
	body := "#!/bin/sh\nfor a in \"$0\" \"$@\"; do printf '%s\\n' \"$a\"; done > " + sq(out) + "\nprintf 'MEM_KEY=%s\\n' \"$MEM_KEY\" >> " + sq(out) + "\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestWrapperRuns executes wrappers as a host would, with arguments and
// an environment of the entry's: with the watchdog binary there, it runs
// `watchdog stdio` with every name as one argument (spaces, quotes, $,
// backticks and a newline in them); with it gone, the server's own
// command straight, with the same arguments.
func TestWrapperRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	server := filepath.Join(dir, "my server's bin", "mem $(x) `y`")
	serverOut, watchdogOut := filepath.Join(dir, "server.out"), filepath.Join(dir, "watchdog.out")
	argvRecorder(t, server, serverOut)
	wd := filepath.Join(dir, "it's the watch dog", "watchdog")
	argvRecorder(t, wd, watchdogOut)
	w := wrapper{host: "Codex CLI", server: "mem \"x\" 'y'\nz", watchdog: wd, stateDir: filepath.Join(dir, "state dir's"), command: server}
	path := filepath.Join(dir, "wrappers", "codex-cli.mem.00000000")
	if err := writeWrapper(path, w.script()); err != nil {
		t.Fatal(err)
	}
	args := []string{"-y", "two words", "it's", "$HOME", ""}
	run := func(out string) []string {
		t.Helper()
		cmd := exec.Command(path, args...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "MEM_KEY=s3cr3t"}
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the wrapper: %v\n%s\n%s", err, b, w.script())
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	}
	want := append(append([]string{wd, "stdio", "--server", "mem \"x\" 'y'", "z", "--host", "Codex CLI", "--state-dir", w.stateDir, "--", server}, args...), "MEM_KEY=s3cr3t")
	if got := run(watchdogOut); !slices.Equal(got, want) {
		t.Fatalf("with the watchdog there, it ran\n%q\nwant\n%q", got, want)
	}
	if err := os.Remove(wd); err != nil {
		t.Fatal(err)
	}
	want = append(append([]string{server}, args...), "MEM_KEY=s3cr3t")
	if got := run(serverOut); !slices.Equal(got, want) {
		t.Fatalf("with the watchdog gone, it ran\n%q\nwant\n%q", got, want)
	}
	if gotWd, gotCmd, ok := parseWrapper(w.script()); !ok || gotWd != wd || gotCmd != server {
		t.Fatalf("read back: %q %q %v", gotWd, gotCmd, ok)
	}
}

// TestWrapperScript: the wrapper says who wrote it and how to undo it,
// in one comment line whatever the names hold, then the two exec lines.
func TestWrapperScript(t *testing.T) {
	t.Parallel()
	w := wrapper{host: "Codex CLI", server: "mem", watchdog: "/usr/bin/watchdog", stateDir: "/home/u/.local/state/mcp-watchdog", command: "npx"}
	want := "#!/bin/sh\n" +
		"# Written by `watchdog hosts adopt 'Codex CLI'` for its stdio server \"mem\": runs it under `watchdog stdio`, which starts it again when it dies. " +
		"`watchdog hosts release 'Codex CLI'` puts back \"npx\".\n" +
		"if [ -x '/usr/bin/watchdog' ]; then exec '/usr/bin/watchdog' stdio --server 'mem' --host 'Codex CLI' --state-dir '/home/u/.local/state/mcp-watchdog' -- 'npx' \"$@\"; fi\n" +
		"exec 'npx' \"$@\"\n"
	if got := string(w.script()); got != want {
		t.Fatalf("script\n%s\nwant\n%s", got, want)
	}
	w.server, w.command = "a\nb\rc", "x\ny"
	if lines := strings.Split(string(w.script()), "\n"); !strings.HasPrefix(lines[1], "# Written by") || !strings.HasPrefix(lines[2], "if [ -x ") {
		t.Fatalf("a newline of a name ended the comment:\n%s", w.script())
	}
	if wd, cmd, ok := parseWrapper(w.script()); !ok || wd != w.watchdog || cmd != "x\ny" {
		t.Fatalf("a command with a newline read back as %q %q %v", wd, cmd, ok)
	}
	if _, cmd, ok := parseWrapper([]byte("#!/bin/sh\necho hi\n")); ok {
		t.Fatalf("a script adopt did not write read as a wrapper of %q", cmd)
	}
}
