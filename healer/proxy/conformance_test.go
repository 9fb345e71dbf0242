package proxy_test

import (
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/conformance"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

// TestDNSRebindingConformance runs the official conformance suite's
// dns-rebinding-protection scenario (a POST whose Host and Origin name
// another site must be refused, one whose Host and Origin are the
// server's own loopback address accepted) through the proxy, in front of
// servers that have the check (the Go SDK's, the TypeScript SDK's) and one
// that lacks it (the Go SDK's with its protection off): the proxy is a
// local MCP server by the spec's rules whatever stands behind it. Measured
// before: the proxy refused every Origin, its own address's too, and so
// failed the second check in front of both.
func TestDNSRebindingConformance(t *testing.T) {
	t.Parallel()
	suite := conformance.Must(t)
	goSrv := startServer(t, demoserver.Options{})
	tsSrv := tsserver.Start(t, tsserver.Options{})
	open := startServer(t, demoserver.Options{NoHostCheck: true})
	for _, tt := range []struct {
		name, upstream string
		straightPasses bool
	}{
		{"go sdk server", goSrv.URL(), true},
		{"ts sdk server", tsSrv.URL(), true},
		{"go sdk server without its check", open.URL(), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			straight := run(t, suite, tt.upstream)
			if got := len(conformance.Failed(straight)) == 0; got != tt.straightPasses {
				t.Fatalf("straight at the server: passed %v, want %v (the server changed?): %v", got, tt.straightPasses, straight)
			}
			px := startProxy(t, proxy.Options{Upstream: tt.upstream})
			if failed := conformance.Failed(run(t, suite, px.url)); len(failed) > 0 {
				t.Errorf("through the proxy: %s", strings.Join(failed, "; "))
			}
		})
	}
}

func run(t *testing.T, suite conformance.Suite, url string) []conformance.Check {
	t.Helper()
	checks, err := suite.Run(t.Context(), conformance.Options{URL: url, Scenario: "dns-rebinding-protection"})
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) < 2 {
		t.Fatalf("the scenario ran %d checks, want 2: %+v", len(checks), checks)
	}
	return checks
}
