package daemon_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/internal/testbed/homeguard"
	"github.com/mcpwatchdog/watchdog/internal/testbed/otheruser"
)

// asDaemon makes the test binary a headless daemon, for the tests that
// need one as a process of its own: killed with SIGKILL, or run by a rig
// that gives it its own environment.
const asDaemon = "WATCHDOG_DAEMON_TEST_SERVE"

func TestMain(m *testing.M) {
	// argv first: a stand-in host restarted by the daemon inherits its env.
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], standInPrefix) {
		standInHost()
		return
	}
	otheruser.Main()
	if os.Getenv(asDaemon) == "1" {
		os.Exit(serveMain(os.Args[1:]))
	}
	os.Exit(homeguard.Main(m))
}

// serveMain serves the daemon on args as `watchdog run --headless` takes
// them ([run] [--headless] --config FILE --state-dir DIR) until SIGTERM or
// an interrupt.
func serveMain(args []string) int {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	cfgPath := fs.String("config", "", "config file")
	stateFlag := fs.String("state-dir", "", "state directory")
	fs.Bool("headless", true, "always headless")
	if len(args) > 0 && args[0] == "run" {
		args = args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, err := config.Load(*cfgPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	stateDir, err := config.ResolveStateDir(*stateFlag, "", cfg.StateDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := daemon.Options{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	journalDrill(&opts, os.Getenv(daemon.JournalFaultEnv))
	if err := daemon.Serve(ctx, cfg, stateDir, opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// daemonCmd prepares this test binary as the daemon, with args.
func daemonCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	// GORACE: a race-enabled binary otherwise sleeps 1 s at exit.
	// HOME is homeguard's temp folder, inherited.
	cmd.Env = append(os.Environ(), asDaemon+"=1", "GORACE=atexit_sleep_ms=0")
	return cmd
}

// daemonCmdHome is daemonCmd with its own HOME, so that the daemon reads no
// client beacons but those of its own test.
func daemonCmdHome(t *testing.T, args ...string) *exec.Cmd {
	cmd := daemonCmd(args...)
	cmd.Env = append(cmd.Env, "HOME="+t.TempDir())
	return cmd
}

// startDaemonProc runs the daemon as a process of its own and waits until
// it is ready; the test's cleanup stops it.
func startDaemonProc(t *testing.T, configPath, stateDir string) *daemontest.Proc {
	t.Helper()
	return daemontest.Start(t, daemonCmdHome(t, "--config", configPath, "--state-dir", stateDir), stateDir)
}

// standInPrefix as the first argument makes the test binary a stand-in
// MCP host process that runs until SIGTERM; the process watcher finds it
// by the rest of that argument.
const standInPrefix = "standin-"

// standInToken is a fresh name for a stand-in host, 15 bytes long: the
// kernel keeps a process's name (comm) to 15 bytes and the watcher lets a
// 15-byte comm match a longer name it begins, so a longer token would let
// one test's restarted host (run through a symlink of that name) pass for
// another test's host.
func standInToken(t *testing.T) string {
	t.Helper()
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return standInPrefix + hex.EncodeToString(b[:])[:7]
}

// standInHost runs until SIGTERM. A second argument names a file it
// appends its pid to first: a test's count of the hosts really started.
func standInHost() {
	if len(os.Args) > 2 {
		f, err := os.OpenFile(os.Args[2], os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			os.Exit(1)
		}
		_, _ = fmt.Fprintln(f, os.Getpid())
		_ = f.Close()
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
}

// startStandInHost starts a stand-in host that runs as token (its argv[0]).
func startStandInHost(t *testing.T, token string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Args = []string{token, token} // runs as token: the watcher matches argv[0]
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	return cmd
}
