package proxy_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/conformance"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsmodern"
)

// modernScenarios are the official suite's server scenarios of 2026-07-28
// that hold for any server (no diagnostic tools of the suite's own needed
// to pass them): the stateless core (server/discover, the per-request
// _meta, version and header errors, removed methods, subscriptions), the
// standard headers, caching hints, tools/list, a missing resource and DNS
// rebinding.
var modernScenarios = []string{"server-stateless", "http-header-validation", "caching", "tools-list",
	"sep-2164-resource-not-found", "dns-rebinding-protection"}

// The proxy passes a 2026-07-28 host through untouched, bridge or not: the
// conformance suite's 2026-07-28 scenarios, run straight at a modern-only
// server (the TypeScript SDK v2) and at the Go SDK's stateless server
// (both eras), then through the proxy, give the proxy every check the
// server passed straight.
func TestModernConformanceThroughProxy(t *testing.T) {
	t.Parallel()
	suite := conformance.Must(t)
	for _, up := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"ts-sdk v2 modern-only", func(t *testing.T) string { return tsmodern.Start(t, tsmodern.Options{}).URL() }},
		{"go-sdk stateless", func(t *testing.T) string { return startServer(t, demoserver.Options{Stateless: true}).URL() }},
	} {
		t.Run(up.name, func(t *testing.T) {
			t.Parallel()
			url := up.url(t)
			px := startProxy(t, proxy.Options{Upstream: url})
			for _, sc := range modernScenarios {
				straight := runModern(t, suite, url, sc)
				through := runModern(t, suite, px.url, sc)
				if lost := lostChecks(straight, through); len(lost) > 0 {
					t.Errorf("%s: through the proxy the server no longer passes: %s", sc, strings.Join(lost, "; "))
				}
				t.Logf("%s: straight %s; through the proxy %s", sc, tally(straight), tally(through))
			}
		})
	}
}

func runModern(t *testing.T, suite conformance.Suite, url, scenario string) []conformance.Check {
	t.Helper()
	checks, err := suite.Run(t.Context(), conformance.Options{URL: url, Scenario: scenario, SpecVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) == 0 {
		t.Fatalf("%s ran no checks", scenario)
	}
	return checks
}

// lostChecks lists the checks that passed straight and did not pass
// through the proxy (by id and how often: a scenario repeats an id per
// case).
func lostChecks(straight, through []conformance.Check) []string {
	passed := func(cs []conformance.Check) map[string]int {
		m := map[string]int{}
		for _, c := range cs {
			if c.Passed() {
				m[c.ID]++
			}
		}
		return m
	}
	got := passed(through)
	var lost []string
	for id, n := range passed(straight) {
		if got[id] < n {
			msg := ""
			for _, c := range through {
				if c.ID == id && !c.Passed() {
					msg = ": " + c.Status + " " + c.ErrorMessage
					break
				}
			}
			lost = append(lost, id+msg)
		}
	}
	sort.Strings(lost)
	return lost
}

func tally(cs []conformance.Check) string {
	n := map[string]int{}
	for _, c := range cs {
		n[c.Status]++
	}
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", n[k], strings.ToLower(k))
	}
	return strings.Join(parts, ", ")
}
