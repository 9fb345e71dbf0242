package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pelletier/go-toml/v2"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/host"
)

// maxFileSize bounds what Load reads. A config file is a few hundred bytes;
// the bound is low because go-toml's strict mode takes time quadratic in
// the number of unknown keys (about 1 s for 64 KiB of them).
const maxFileSize = 64 << 10

// DefaultPath is os.UserConfigDir()/mcp-watchdog/config.toml.
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the config directory: %w", err)
	}
	return filepath.Join(dir, "mcp-watchdog", "config.toml"), nil
}

// Load reads, expands and validates the config file at path. With path ""
// it reads DefaultPath(), and a missing file there means Default() (with
// Path ""); a missing file at a path the caller named is an error. All
// config problems wrap ErrInvalid.
func Load(path string) (Config, error) {
	return load(path, osEnv())
}

func load(path string, env environ) (Config, error) {
	explicit := path != ""
	if !explicit {
		p, err := DefaultPath()
		if err != nil {
			return Config{}, err
		}
		path = p
	}
	data, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		c := Default()
		if err := c.expandPaths(env); err != nil {
			return Config{}, err
		}
		return c, nil
	}
	if err != nil {
		return Config{}, err
	}
	return parse(path, data, env)
}

// readFile reads the config without blocking: a FIFO (or device) at the
// path would hold open(2) until a writer came, deaf to SIGTERM.
func readFile(path string) ([]byte, error) {
	data, err := fsutil.ReadRegular(path, maxFileSize)
	switch {
	case errors.Is(err, fsutil.ErrTooLarge):
		return nil, &Error{File: path, Msg: "larger than 64 KiB; is this the config file?"}
	case errors.Is(err, fsutil.ErrNotRegular):
		return nil, &Error{File: path, Msg: "cannot be read: " + err.Error() + "; point --config (or WATCHDOG_CONFIG) at a regular file", Err: err}
	case err != nil:
		return nil, fileError(path, err)
	}
	return data, nil
}

func fileError(path string, err error) error {
	msg := "cannot be read: " + err.Error()
	if errors.Is(err, fs.ErrNotExist) {
		msg = "no such file; check --config and WATCHDOG_CONFIG, or create the file"
	}
	return &Error{File: path, Msg: msg, Err: err}
}

// parse decodes data over the defaults, then expands and validates it.
// file names the source in messages.
func parse(file string, data []byte, env environ) (Config, error) {
	def := Default()
	fc := fileConfig{
		StateDir:      def.StateDir,
		Notify:        def.Notify,
		MetricsListen: def.MetricsListen,
	}
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fc); err != nil {
		return Config{}, decodeError(file, err, buildIndex(data))
	}
	ix := buildIndex(data)
	c := Config{
		Path:          file,
		StateDir:      fc.StateDir,
		Notify:        fc.Notify,
		MetricsListen: fc.MetricsListen,
		Hosts:         def.Hosts,
		Servers:       def.Servers,
		index:         ix,
		hostTables:    ix.arrayOfTables("host"),
	}
	if fc.Hosts != nil {
		c.Hosts = make([]Host, len(fc.Hosts))
		for i, h := range fc.Hosts {
			c.Hosts[i] = h.withDefaults()
		}
	}
	if fc.Servers != nil { // the file speaks about servers: its list wins
		c.Servers = make([]Server, len(fc.Servers))
		for i, s := range fc.Servers {
			c.Servers[i] = s.withDefaults()
		}
	}
	if err := c.expandPaths(env); err != nil {
		return Config{}, err
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// withDefaults fills the keys the table left out from the profile its name
// names, or the one whose client its client_name is (a known host
// renamed); a table with no name is the default host's.
func (h fileHost) withDefaults() Host {
	name, clientName := host.Default().Name, ""
	if h.Name != nil {
		name = *h.Name
	}
	if h.ClientName != nil {
		clientName = *h.ClientName
	}
	out := hostDefaults(profileFor(name, clientName))
	out.Name, out.AutoRestart, out.ClientModule = name, h.AutoRestart, h.ClientModule
	if h.ClientName != nil {
		out.ClientName = *h.ClientName
	}
	if h.Logs != nil {
		out.Logs = *h.Logs
	}
	if h.Process != nil {
		out.Process = *h.Process
	}
	if h.Port != nil {
		out.Port = *h.Port
	}
	if h.Restart != nil {
		out.Restart = *h.Restart
	}
	return out
}

func (s fileServer) withDefaults() Server {
	out := Server{
		Name:          s.Name,
		URL:           s.URL,
		Logs:          s.Logs,
		Store:         s.Store,
		IdleTimeout:   Duration{DefaultIdleTimeout},
		KeepWarm:      DefaultKeepWarm,
		Headers:       s.Headers,
		AllowInsecure: s.AllowInsecure,
		ProxyListen:   s.ProxyListen,
	}
	if s.IdleTimeout != nil {
		out.IdleTimeout = *s.IdleTimeout
	}
	if s.KeepWarm != nil {
		out.KeepWarm = *s.KeepWarm
	}
	return out
}
