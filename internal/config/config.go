package config

import (
	"cmp"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// Duration is a time.Duration written in TOML as a Go duration string
// ("90s", "12h").
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration: %w", b, err)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration without zero tails ("12h", not "12h0m0s").
func (d Duration) MarshalText() ([]byte, error) {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return []byte(s), nil
}

// Config is the whole config file.
type Config struct {
	Path          string `toml:"-"` // file it came from ("" = built-in defaults)
	StateDir      string `toml:"state_dir"`
	Notify        bool   `toml:"notify"`
	MetricsListen string `toml:"metrics_listen"`
	// Hosts are the MCP hosts watched, in the file's order: a lone [host]
	// table or [[host]] tables. Load and Default give at least one.
	Hosts   []Host   `toml:"host"`
	Servers []Server `toml:"server"`

	// index maps key paths to lines of the file the config came from, so
	// that Validate can point at them; nil when not read from a file.
	index *keyIndex
	// hostTables: the file wrote [[host]] tables, so keys are host[i].…,
	// not host.… (a lone [host] table, or none).
	hostTables bool
	// Found says what is watched and why when there is no config file
	// (AsFound); nil for a config file's, and for Default.
	Found *Found `toml:"-"`
}

// MainHost is the host the views that speak of one host show (status's
// "host", the tray's title, `watchdog patch`): the one whose client takes
// the watchdog's patch, else the first. Client names are unique, and only
// one profile's client is patchable, so there is at most one such host.
func (c Config) MainHost() Host {
	for _, h := range c.Hosts {
		if h.Profile().Patchable() {
			return h
		}
	}
	if len(c.Hosts) == 0 && c.Found != nil {
		return Host{} // a machine with no host found: none to speak of
	}
	if len(c.Hosts) == 0 {
		return hostDefaults(host.Default())
	}
	return c.Hosts[0]
}

// HostKey is how messages name the i-th host's table: "host" for a lone
// [host] table, "host[i]" among [[host]] tables.
func (c Config) HostKey(i int) string {
	if c.hostTables {
		return "host[" + strconv.Itoa(i) + "]"
	}
	return "host"
}

// Host is one MCP host whose client holds sessions on the servers.
type Host struct {
	Name         string   `toml:"name"`
	ClientName   string   `toml:"client_name"`
	Logs         []string `toml:"logs"`
	Process      string   `toml:"process"`
	Port         int      `toml:"port"`
	Restart      []string `toml:"restart"`
	AutoRestart  bool     `toml:"auto_restart"`
	ClientModule string   `toml:"client_module"`
}

// Server is one MCP server.
type Server struct {
	Name        string            `toml:"name"`
	URL         string            `toml:"url"`
	Logs        []string          `toml:"logs,omitempty"`
	Store       string            `toml:"store,omitempty"`
	IdleTimeout Duration          `toml:"idle_timeout"`
	KeepWarm    bool              `toml:"keep_warm"`
	Headers     map[string]string `toml:"headers,omitempty"`
	// AllowInsecure permits plain http to a host that is not loopback, where
	// session ids and headers would cross the network unencrypted.
	AllowInsecure bool `toml:"allow_insecure"`
	// ProxyListen, when set, serves a session-keeping proxy for this server
	// at http://<ProxyListen>/<secret>/mcp (loopback only; the secret is
	// kept in the state directory, see proxy.LoadSecret): the URL to give
	// the host, which `status` and `doctor` print.
	ProxyListen string `toml:"proxy_listen,omitempty"`
}

// Per-server defaults for keys a [[server]] table leaves out.
const (
	DefaultIdleTimeout = 12 * time.Hour
	DefaultKeepWarm    = true
)

// Default is the built-in config: the default host (host.Default, which is
// DSH) and the Nowledge Mem server. Its paths are unexpanded (they start
// with ~); Load expands them.
func Default() Config {
	return defaultFor(runtime.GOOS)
}

func defaultFor(goos string) Config {
	return Config{
		Notify: true,
		Hosts:  []Host{hostDefaults(host.Default())},
		Servers: []Server{{
			Name:        "nowledge-mem",
			URL:         "http://127.0.0.1:14242/mcp",
			Logs:        nowledgeLogs(goos),
			IdleTimeout: Duration{DefaultIdleTimeout},
			KeepWarm:    DefaultKeepWarm,
		}},
	}
}

// hostDefaults are the [host] table's defaults for the host p: its
// profile's, with no module chosen and no restart without asking.
func hostDefaults(p host.Profile) Host {
	return Host{
		Name:       p.Name,
		ClientName: p.ClientName,
		Logs:       p.Logs,
		Process:    p.Process,
		Port:       p.Port,
		Restart:    p.Restart,
	}
}

// Profile is the profile of the host this table configures (profileFor).
// The table's keys override the profile's defaults; the rest of the
// profile (its client module, config files, behaviour on a loss) has no
// key, and callers take it from here.
func (h Host) Profile() host.Profile { return profileFor(h.Name, h.ClientName) }

// profileFor picks a host table's profile: the one host.name names; else
// the one whose client is client_name (a known host renamed, "DSH at
// work"); else a custom host of that name and client. With neither name
// nor client known it is a profile without a client name, which Validate
// refuses.
func profileFor(name, clientName string) host.Profile {
	if p, ok := host.Lookup(name); ok {
		return p
	}
	for _, p := range host.Profiles() {
		if clientName != "" && p.ClientName == clientName {
			return p
		}
	}
	if clientName != "" {
		return host.Custom(name, clientName)
	}
	return host.Profile{Name: name}
}

// DisplayName is how messages name the host: host.name, or its profile's
// name when the file sets host.name empty.
func (h Host) DisplayName() string { return cmp.Or(h.Name, h.Profile().Name) }

// nowledgeLogs are where the Nowledge Mem desktop app (a Tauri app with
// bundle id co.nowledge.mem.desktop) writes its logs. Tauri's log directory
// is ~/Library/Logs/<bundle id> on macOS; on Linux it is
// ~/.local/share/<bundle id>/logs in Tauri 2 and ~/.config/<bundle id>/logs
// in Tauri 1. The Homebrew cask also removes "~/Library/Logs/Nowledge Mem",
// so that name is watched too. Globs that match nothing cost nothing.
func nowledgeLogs(goos string) []string {
	const id = nowledgeID
	if goos == "darwin" {
		return []string{
			"~/Library/Logs/" + id + "/*.log",
			"~/Library/Logs/Nowledge Mem/*.log",
		}
	}
	return []string{
		"~/.local/share/" + id + "/logs/*.log",
		"~/.config/" + id + "/logs/*.log",
	}
}

// nowledgeID is the Nowledge Mem desktop app's bundle id, which names its
// folders.
const nowledgeID = "co.nowledge.mem.desktop"

func goosOr(goos string) string {
	if goos == "" {
		return runtime.GOOS
	}
	return goos
}

// ProxyListens are the config's proxy_listen addresses, in its order.
func (c Config) ProxyListens() []string {
	var out []string
	for _, s := range c.Servers {
		if s.ProxyListen != "" {
			out = append(out, s.ProxyListen)
		}
	}
	return out
}

// ProxyUpstreams maps each proxy_listen address of the config to the URL of
// the server that proxy stands for: how a host's URL pointing at a proxy is
// traced back to its server.
func (c Config) ProxyUpstreams() map[string]string {
	out := map[string]string{}
	for _, s := range c.Servers {
		if s.ProxyListen != "" {
			out[s.ProxyListen] = s.URL
		}
	}
	return out
}
