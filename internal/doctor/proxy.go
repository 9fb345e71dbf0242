package doctor

import (
	"fmt"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// proxyFinding gives the URL of s's proxy. Doctor runs without a daemon,
// so it reads the secret from the state directory, making it when no
// daemon has yet: the daemon started later uses that one.
func proxyFinding(check string, s config.Server, stateDir string) Finding {
	secret, err := proxy.LoadSecret(stateDir)
	if err != nil {
		return Finding{Check: check, Detail: "no URL for the proxy: " + err.Error(),
			Fix: "make the state directory usable (--state-dir or WATCHDOG_STATE_DIR), or remove a damaged " + proxy.SecretFile + " there"}
	}
	return Finding{Check: check, OK: true, Detail: fmt.Sprintf(
		"the daemon serves a session-keeping proxy at %s, to the user it runs as only: give the host that URL in place of %s "+
			"(it holds a secret: keep it to the host's config)", proxy.URLFor(s.ProxyListen, secret), mask.URL(s.URL))}
}
