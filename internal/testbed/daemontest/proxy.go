package daemontest

import (
	"testing"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
)

// ProxyURL is the URL a host gives the proxy the daemon of stateDir
// serves on listen: the secret is the one that daemon keeps (made here
// when it has not started yet).
func ProxyURL(t testing.TB, stateDir, listen string) string {
	t.Helper()
	secret, err := proxy.LoadSecret(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	return proxy.URLFor(listen, secret)
}
