package hosts

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/adopt"
	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// `watchdog hosts adopt DSH` on the real host's own profile: adopt finds
// the server in DSH's patch layer (a plugin entry inside an insert list),
// rewrites only its URL to the proxy's and gives the running watchdog's
// config the proxy, which the watchdog takes at once; the real DSH then
// reads the adopted profile and every call after the idle expiry works.
func TestDSHAdoptedByTheWatchdog(t *testing.T) {
	t.Parallel()
	r := NewRig(t, GoSDK, idle)
	in := MustDSH(t)
	o := HostOptions{Home: r.Home, ServerURL: r.Server.url}
	if err := WriteDSHProfile(in, o, "headless"); err != nil {
		t.Fatal(err)
	}
	w := r.StartWatchdog("demo", idle, false, "process = \"\"\nport = 0")
	secret, err := proxy.LoadSecret(w.State)
	if err != nil {
		t.Fatal(err)
	}
	prof := host.DSH()
	files := find.Paths(prof, find.Options{Home: r.Home, GOOS: "linux", Getenv: func(k string) string { return map[string]string{"DSH_HOME": r.Home}[k] }})
	res, err := adopt.Adopt(t.Context(), adopt.Options{Host: prof, Files: files, ConfigPath: w.Config, StateDir: w.State, Secret: secret})
	if err != nil || !res.Changed {
		t.Fatalf("adopt: %+v, %v", res, err)
	}
	proxyURL := adoptedURL(t, DSHProfilePatch(r.Home, "headless"))
	if proxyURL == r.Server.url || !strings.Contains(proxyURL, "127.0.0.1:") {
		t.Fatalf("the adopted profile names %q; want the proxy's URL", proxyURL)
	}
	waitListening(t, w.Config)
	r.StartDSH(in, "")
	callOK(t, r, "before")
	r.WaitEnd(dshClient, demoserver.ReasonIdleTimeout)
	for i := 1; i <= 3; i++ {
		callOK(t, r, fmt.Sprintf("after-%d", i))
	}
	r.Finish()
	daemontest.WaitEvent(t, w.State, "recovered", 1, 10*time.Second)
}

// adoptedURL is the one server's URL in a DSH profile patch layer.
func adoptedURL(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := hostfile.FormatOf(file)
	if err != nil {
		t.Fatal(err)
	}
	servers, err := hostfile.Servers(f, data, host.DSH().Layout)
	if err != nil || len(servers) != 1 || servers[0].Name != ServerName {
		t.Fatalf("servers in %s: %+v, %v; want %s alone\n%s", file, servers, err, ServerName, data)
	}
	return servers[0].URL
}

// waitListening waits until the proxy the config now names listens.
func waitListening(t *testing.T, cfgPath string) {
	t.Helper()
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	var listen string
	for _, s := range cfg.Servers {
		if s.ProxyListen != "" {
			listen = s.ProxyListen
		}
	}
	if listen == "" {
		t.Fatalf("adopt gave %s no proxy_listen", cfgPath)
	}
	daemontest.WaitFor(t, 20*time.Second, "the adopted proxy listening on "+listen, func() bool {
		c, err := net.DialTimeout("tcp", listen, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}
