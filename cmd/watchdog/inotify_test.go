//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// manyServers is more servers than Linux lets a user hold inotify
// instances by default (fs.inotify.max_user_instances = 128).
const manyServers = 140

// One inotify instance serves the whole daemon, however many servers: with
// one per session store it held 52 at 50 servers (each with a 64 KiB read
// buffer) and could not watch past 126.
func TestOneInotifyInstanceForEveryStore(t *testing.T) {
	dir := t.TempDir()
	cfg := "[host]\nprocess = \"\"\nport = 0\n"
	for i := range manyServers {
		store := filepath.Join(dir, fmt.Sprintf("server%d", i), "mcp-sessions.json")
		if err := os.MkdirAll(filepath.Dir(store), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(store, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		log := filepath.Join(dir, fmt.Sprintf("server%d", i), "server.log")
		if err := os.WriteFile(log, []byte("INFO started\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg += fmt.Sprintf("[[server]]\nname = \"s%d\"\nurl = \"http://127.0.0.1:9/mcp\"\nstore = %q\nlogs = [%q]\nkeep_warm = false\n", i, store, log)
	}
	configPath := daemontest.WriteConfig(t, dir, cfg)
	p := startDaemon(t, configPath, filepath.Join(dir, "state"))
	if n := inotifyInstances(t, p.Cmd.Process.Pid); n != 1 {
		t.Errorf("the daemon holds %d inotify instances for %d servers; want 1", n, manyServers)
	}
}

// inotifyInstances counts pid's descriptors that are inotify instances.
func inotifyInstances(t *testing.T, pid int) int {
	t.Helper()
	fds, err := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && strings.Contains(target, "inotify") {
			n++
		}
	}
	return n
}
