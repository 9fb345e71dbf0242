package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// Security checks over the whole binary, with a live session tracked: no
// full session id and no ${ENV} header value in anything it prints or
// journals, crash dumps included; state files 0600, directories 0700, the
// control socket 0600.

// debugEnv makes the daemon log everything it can: leaks hide at debug.
const debugEnv = "WATCHDOG_LOG=debug"

// runWatchdogEnv is runWatchdog with extra environment variables.
func runWatchdogEnv(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := watchdogCmd(t, args...)
	cmd.Env = append(cmd.Env, env...)
	return runCmd(t, cmd)
}

// runCmd runs a short watchdog command and returns its exit code and output;
// only a failure to run it at all fails the test.
func runCmd(t *testing.T, cmd *exec.Cmd) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	}
	if err != nil {
		t.Fatalf("watchdog %v: %v", cmd.Args[1:], err)
	}
	return 0, out.String(), errb.String()
}

// startDaemonEnv is startDaemon with extra environment variables.
func startDaemonEnv(t *testing.T, configPath, stateDir string, env ...string) *daemontest.Proc {
	t.Helper()
	cmd := watchdogCmd(t, "run", "--headless", "--config", configPath, "--state-dir", stateDir)
	cmd.Env = append(cmd.Env, env...)
	return daemontest.Start(t, cmd, stateDir)
}

// hidden fails the test when out shows any 9 characters of a session id in
// a row (a mask shows 4 and 4) or any secret whole.
func hidden(t *testing.T, what, out string, ids, secrets []string) {
	t.Helper()
	for _, id := range ids {
		for i := 0; i+9 <= len(id); i++ {
			if strings.Contains(out, id[i:i+9]) {
				t.Errorf("%s shows session id %s (%q):\n%s", what, daemontest.MaskedID(id), id[i:i+9], out)
				break
			}
		}
	}
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Errorf("%s shows the header value %q:\n%s", what, s, out)
		}
	}
}

// checkModes walks the state directory: every directory 0700, every file
// and socket 0600. It returns the names it saw.
func checkModes(t *testing.T, dir string) []string {
	t.Helper()
	var seen []string
	err := filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		seen = append(seen, rel)
		want := fs.FileMode(0o600)
		if de.IsDir() {
			want = 0o700
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			t.Errorf("%s is a symlink in the state dir", rel)
		} else if fi.Mode().Perm() != want {
			t.Errorf("%s (%v) has mode %04o, want %04o", rel, fi.Mode().Type(), fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return seen
}

// echoServer answers every request 400 with the request's credentials in
// the body, as a careless server's error page might.
func echoServer(t *testing.T) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		http.Error(w, fmt.Sprintf("Bad Request: rejected Authorization=%q X-NMEM-API-Key=%q Mcp-Session-Id=%q",
			r.Header.Get("Authorization"), r.Header.Get("X-NMEM-API-Key"), r.Header.Get("Mcp-Session-Id")), http.StatusBadRequest)
	}))
	t.Cleanup(hs.Close)
	return hs
}

// secureSetup is keepWarmSetup plus metrics on loopback, ${ENV} headers on
// the server, and a second server that echoes credentials back. It
// returns the demo server, the config, the state dir, the metrics address,
// the echo server's URL and the environment carrying the secret.
func secureSetup(t *testing.T) (srv *demoserver.Server, cfg, state, metricsAddr, echoURL string, env []string, secret string) {
	t.Helper()
	srv, cfg, state = daemontest.KeepWarmSetup(t, true, "")
	metricsAddr = daemontest.FreePort(t)
	echoURL = echoServer(t).URL + "/mcp"
	secret = "wd-secret-" + rand.Text()
	body, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// keepWarmSetup's config ends inside the [[server]] table of "mem".
	doc := fmt.Sprintf("metrics_listen = %q\n%s", metricsAddr, body) +
		"headers = { Authorization = \"Bearer ${WD_SECURITY_TOKEN}\", X-NMEM-API-Key = \"${WD_SECURITY_TOKEN}\" }\n" +
		fmt.Sprintf("[[server]]\nname = \"echo\"\nurl = %q\nidle_timeout = \"1h\"\nkeep_warm = false\n", echoURL) +
		"headers = { Authorization = \"Bearer ${WD_SECURITY_TOKEN}\" }\n"
	if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, cfg, state, metricsAddr, echoURL, []string{"WD_SECURITY_TOKEN=" + secret, debugEnv}, secret
}

func scrape(t *testing.T, addr string) string {
	t.Helper()
	return daemontest.ScrapeUntil(t, addr, "a metrics scrape", func(string) bool { return true })
}

// TestSecurityLiveOutputsHideIDsAndSecrets: with a real session tracked
// and kept warm, and headers taken from ${ENV}, nothing the watchdog
// prints shows the session id or the header value: status (text and
// JSON), heal, doctor (text and JSON), probe (of the real server and of
// one that echoes credentials back), the metrics scrape, the journal and
// the daemon's own log at debug level. The state dir and the control
// socket are private while it runs and after it stops.
func TestSecurityLiveOutputsHideIDsAndSecrets(t *testing.T) {
	t.Parallel()
	srv, cfg, state, metricsAddr, echoURL, env, secret := secureSetup(t)
	d := startDaemonEnv(t, cfg, state, env...)
	ctx := context.Background()
	cs, err := demoserver.Connect(ctx, srv.URL(), daemontest.HostClient())
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ids := []string{cs.ID()}
	secrets := []string{secret}
	daemontest.WaitEvent(t, state, "keep_warm", 1, 15*time.Second) // the daemon has used the id itself

	seen := checkModes(t, state)
	if !slices.Contains(seen, control.SocketName) || !slices.Contains(seen, "events.jsonl") {
		t.Errorf("state dir holds %q: the socket or the journal is missing, the mode check saw too little", seen)
	}

	st := statusJSON(t, cfg, state)
	if _, sessions := daemontest.ServerState(st, "mem"); !strings.Contains(fmt.Sprint(sessions), daemontest.MaskedID(cs.ID())) {
		t.Fatalf("status does not list the live session %s: %v", daemontest.MaskedID(cs.ID()), sessions)
	}
	commands := [][]string{
		{"status", "--json"}, {"status"}, {"heal", "mem"},
		{"doctor", "--json"}, {"doctor"},
		{"probe", srv.URL(), "--json"}, {"probe", echoURL}, {"probe", echoURL, "--json"},
	}
	for _, args := range commands {
		args = append(args, "--config", cfg, "--state-dir", state)
		_, out, errOut := runWatchdogEnv(t, env, args...)
		hidden(t, "watchdog "+strings.Join(args[:2], " "), out+errOut, ids, secrets)
	}
	hidden(t, "the metrics scrape", scrape(t, metricsAddr), ids, secrets)

	d.Stop(t)
	checkModes(t, state)
	journal, err := os.ReadFile(filepath.Join(state, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(journal), daemontest.MaskedID(cs.ID())) {
		t.Fatalf("the journal never names the session %s: the check below would prove nothing", daemontest.MaskedID(cs.ID()))
	}
	hidden(t, "the journal", string(journal), ids, secrets)
	hidden(t, "the daemon's log", d.Stderr(), ids, secrets)
}

// TestSecurityCrashOutputHidesIDs: a daemon tracking a live session is
// killed with SIGQUIT, and the Go runtime's dump of every goroutine shows
// no session id; the next start fails (its socket path is taken by a
// file) after reading the session again, and that error exit shows none
// either.
func TestSecurityCrashOutputHidesIDs(t *testing.T) {
	t.Parallel()
	srv, cfg, state := daemontest.KeepWarmSetup(t, true, "")
	d := startDaemonEnv(t, cfg, state, debugEnv, "GOTRACEBACK=all")
	ctx := context.Background()
	cs, err := demoserver.Connect(ctx, srv.URL(), daemontest.HostClient())
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ids := []string{cs.ID()}
	daemontest.WaitEvent(t, state, "keep_warm", 1, 15*time.Second)

	if err := d.Cmd.Process.Signal(syscall.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.Exited():
	case <-time.After(30 * time.Second):
		d.Kill()
		t.Fatal("the daemon did not die on SIGQUIT")
	}
	dump := d.Stderr()
	if !strings.Contains(dump, "SIGQUIT") || !strings.Contains(dump, "goroutine ") {
		t.Fatalf("no goroutine dump on stderr:\n%s", dump)
	}
	hidden(t, "the SIGQUIT dump", dump, ids, nil)

	// A file where the socket goes: the daemon starts, reads the store
	// (and what the killed run left), then fails and exits 1.
	code, out := runOnAFileAtTheSocket(t, cfg, state)
	if code != exitFailed || !strings.Contains(out, "not a socket") {
		t.Fatalf("exit %d, want 1 naming the socket path; output:\n%s", code, out)
	}
	hidden(t, "the failed start", out, ids, nil)
	journal, err := os.ReadFile(filepath.Join(state, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	hidden(t, "the journal", string(journal), ids, nil)
}

// runOnAFileAtTheSocket puts a file where the control socket of state goes
// and runs `watchdog run --headless` on it (logging at debug, with every
// goroutine in a crash dump), failing the test when it is still running
// after 30 s. It returns the exit code and the output, stdout and stderr.
func runOnAFileAtTheSocket(t *testing.T, cfg, state string) (int, string) {
	t.Helper()
	sock := filepath.Join(state, control.SocketName)
	if err := os.Remove(sock); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.WriteFile(sock, []byte("not a socket\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := watchdogCmd(t, "run", "--headless", "--config", cfg, "--state-dir", state)
	run.Env = append(run.Env, debugEnv, "GOTRACEBACK=all")
	var out bytes.Buffer
	run.Stdout, run.Stderr = &out, &out
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- run.Wait() }()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		_ = run.Process.Kill()
		<-exited
		t.Fatalf("the daemon kept running with a file at its socket path:\n%s", out.String())
	}
	return run.ProcessState.ExitCode(), out.String()
}
