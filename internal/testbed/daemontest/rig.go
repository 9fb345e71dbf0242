package daemontest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// HostClient is the client name of the host's MCP client in the rigs'
// configs: the default host profile's, as in a config that leaves it out.
func HostClient() string { return host.Default().ClientName }

// KeepWarmSetup: a real Go SDK server whose sessions expire after 3 s idle
// and a watchdog config for it; hostProcess "" leaves the host unwatched.
// It returns the server, the config's path and the state dir. The config
// ends inside the [[server]] table of "mem".
func KeepWarmSetup(t *testing.T, keepWarm bool, hostProcess string) (*demoserver.Server, string, string) {
	t.Helper()
	host := fmt.Sprintf("client_name = %q\nprocess = %q\nport = 0\n", HostClient(), hostProcess)
	return MemSetup(t, 3*time.Second, keepWarm, host)
}

// MemSetup: a real Go SDK server whose sessions expire after idle, and a
// watchdog config for it as server "mem", with hostKeys as its [host]
// table's keys. It returns what KeepWarmSetup does.
func MemSetup(t *testing.T, idle time.Duration, keepWarm bool, hostKeys string) (*demoserver.Server, string, string) {
	t.Helper()
	return MemSetupHosts(t, idle, keepWarm, "[host]\n"+hostKeys)
}

// MemSetupHosts is MemSetup with the config's host tables written whole
// (several [[host]] tables).
func MemSetupHosts(t *testing.T, idle time.Duration, keepWarm bool, hostTables string) (*demoserver.Server, string, string) {
	t.Helper()
	dir := t.TempDir()
	store := filepath.Join(dir, "mem", "mcp-sessions.json")
	srvLog := filepath.Join(dir, "mem", "server.log")
	if err := os.MkdirAll(filepath.Dir(store), 0o700); err != nil {
		t.Fatal(err)
	}
	srv, err := demoserver.Start(context.Background(), demoserver.Options{IdleTimeout: idle, StorePath: store, LogPath: srvLog})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg := WriteConfig(t, dir, fmt.Sprintf(`
%s
[[server]]
name = "mem"
url = %q
logs = [%q]
store = %q
idle_timeout = %q
keep_warm = %v
`, hostTables, srv.URL(), srvLog, store, idle.String(), keepWarm))
	return srv, cfg, filepath.Join(dir, "state")
}

// MaskedID is a session id as every output shows it: the one rule,
// internal/mask's.
func MaskedID(id string) string { return mask.ID(id) }

// ServerState is the state and the sessions of server name in a status
// (`watchdog status --json`, the control socket's answer).
func ServerState(st map[string]any, name string) (state string, sessions []any) {
	servers, _ := st["servers"].([]any)
	for _, s := range servers {
		m, _ := s.(map[string]any)
		if m["name"] == name {
			state, _ = m["state"].(string)
			sessions, _ = m["sessions"].([]any)
			return state, sessions
		}
	}
	return "", nil
}

// FreePort is a loopback address nothing listens on (at the time).
func FreePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// ScrapeUntil scrapes the metrics endpoint at addr until it answers 200
// with a body done accepts, and returns that body.
func ScrapeUntil(t *testing.T, addr, what string, done func(body string) bool) string {
	t.Helper()
	var body string
	WaitFor(t, 10*time.Second, what, func() bool {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		return resp.StatusCode == http.StatusOK && done(body)
	})
	return body
}
