package daemon_test

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// The proxy's own count of the requests it served on its fast path, and
// those it left to the general path with the reason, is in the metrics:
// a host's calls show as fast, its GET stream as general ("method").
func TestProxyPathsInMetrics(t *testing.T) {
	t.Parallel()
	_, cfg, state := daemontest.KeepWarmSetup(t, false, "")
	listen, metricsAt := daemontest.FreePort(t), daemontest.FreePort(t)
	body, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("metrics_listen = %q\n%sproxy_listen = %q\n", metricsAt, body, listen)), 0o600); err != nil {
		t.Fatal(err)
	}
	startDaemonOpts(t, cfg, state, daemon.Options{ConfigFile: cfg})
	cs, err := demoserver.Connect(t.Context(), daemontest.ProxyURL(t, state, listen), daemontest.HostClient())
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for range 3 {
		if _, err := cs.CallTool(t.Context(), toolCall("echo")); err != nil {
			t.Fatal(err)
		}
	}
	fast := regexp.MustCompile(`mcp_watchdog_proxy_requests_total\{path="fast",reason="",server="mem"\} (\d+)`)
	scrape := daemontest.ScrapeUntil(t, metricsAt, "the host's calls counted as fast", func(body string) bool {
		m := fast.FindStringSubmatch(body)
		if m == nil {
			return false
		}
		n, _ := strconv.Atoi(m[1])
		return n >= 5 // initialize, notifications/initialized, 3 calls
	})
	if !strings.Contains(scrape, `mcp_watchdog_proxy_requests_total{path="general",reason="method",server="mem"}`) {
		t.Errorf("no general series for the GET stream:\n%s", scrape)
	}
}
