package autostart

import (
	"path/filepath"

	"github.com/mcpwatchdog/watchdog/internal/config"
)

// ListensOf is every proxy_listen of cfg, in config order and each once:
// what the supervisor holds a socket for (Options.Listen).
func ListensOf(cfg config.Config) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range cfg.Servers {
		if s.ProxyListen != "" && !seen[s.ProxyListen] {
			seen[s.ProxyListen] = true
			out = append(out, s.ProxyListen)
		}
	}
	return out
}

// ForConfig fills in o what the daemon of cfg needs from its supervisor:
// --config when cfg is not the default file (the supervised daemon then
// runs this config, whose sockets the supervisor holds), its
// proxy_listen addresses, and its control socket at control (the
// daemon's SocketPath of its state directory).
func ForConfig(o Options, cfg config.Config, control string) Options {
	o.ConfigFile = ""
	if cfg.Path != "" {
		if def, err := config.DefaultPath(); err != nil || filepath.Clean(def) != filepath.Clean(cfg.Path) {
			o.ConfigFile = cfg.Path
		}
	}
	o.Listen = ListensOf(cfg)
	o.Control = control
	return o
}
