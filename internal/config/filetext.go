package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// HostOf is the [host] table a config watching the host of profile p has
// when it names no more than the host: its profile's defaults.
func HostOf(p host.Profile) Host { return hostDefaults(p) }

// Text is c's hosts and servers as a config file a user can read and edit
// writes them, head (comment lines, may be empty) above: a [[host]] table
// per host, its name and what differs from its profile's defaults; a
// [[server]] table per server, with the keys it sets. Parse gives c's
// hosts and servers back; the top-level keys are left at their defaults.
// A config with no host or no server writes no table of it, which Parse
// reads as the default's.
func Text(c Config, head string) string {
	var b strings.Builder
	b.WriteString(head)
	for _, h := range c.Hosts {
		b.WriteString("\n[[host]]\n")
		writeHost(&b, h)
	}
	for _, s := range c.Servers {
		b.WriteString("\n[[server]]\n")
		writeServer(&b, s)
	}
	return b.String()
}

// writeHost writes h's name and the keys where it differs from the
// defaults Parse fills in for that name (and client).
func writeHost(b *strings.Builder, h Host) {
	kv(b, "name", quote(h.Name))
	def := hostDefaults(profileFor(h.Name, ""))
	if h.ClientName != def.ClientName {
		kv(b, "client_name", quote(h.ClientName))
		def = hostDefaults(profileFor(h.Name, h.ClientName))
	}
	if !slices.Equal(h.Logs, def.Logs) {
		kv(b, "logs", quoteList(h.Logs))
	}
	if h.Process != def.Process {
		kv(b, "process", quote(h.Process))
	}
	if h.Port != def.Port {
		kv(b, "port", fmt.Sprint(h.Port))
	}
	if !slices.Equal(h.Restart, def.Restart) {
		kv(b, "restart", quoteList(h.Restart))
	}
	if h.AutoRestart {
		kv(b, "auto_restart", "true")
	}
	if h.ClientModule != "" {
		kv(b, "client_module", quote(h.ClientModule))
	}
}

func writeServer(b *strings.Builder, s Server) {
	kv(b, "name", quote(s.Name))
	kv(b, "url", quote(s.URL))
	if len(s.Logs) > 0 {
		kv(b, "logs", quoteList(s.Logs))
	}
	if s.Store != "" {
		kv(b, "store", quote(s.Store))
	}
	idle, _ := s.IdleTimeout.MarshalText()
	kv(b, "idle_timeout", quote(string(idle)))
	kv(b, "keep_warm", fmt.Sprint(s.KeepWarm))
	if len(s.Headers) > 0 {
		var pairs []string
		for _, k := range sortedKeys(s.Headers) {
			pairs = append(pairs, quote(k)+" = "+quote(s.Headers[k]))
		}
		kv(b, "headers", "{"+strings.Join(pairs, ", ")+"}")
	}
	if s.AllowInsecure {
		kv(b, "allow_insecure", "true")
	}
	if s.ProxyListen != "" {
		kv(b, "proxy_listen", quote(s.ProxyListen))
	}
}

func kv(b *strings.Builder, key, value string) { b.WriteString(key + " = " + value + "\n") }

// quote is s as a TOML basic string: control characters as \uXXXX, which
// TOML reads (Go's \x escapes it does not).
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func quoteList(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quote(s)
	}
	return "[" + strings.Join(out, ", ") + "]"
}
