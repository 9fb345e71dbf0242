// Package host holds what the watchdog knows about the MCP hosts it watches,
// one Profile per host: the defaults of the config's [host] table, the host's
// MCP client module and the folders its client fix shares with the watchdog,
// and the name all of it is shown under.
//
// It is data only (no I/O, no state) so that any package, from the pure
// health model to the tray, may import it. Other packages take what they
// need from a Profile (config defaults, clientpatch.FindOptions, the
// recovery trigger folder) instead of naming a host themselves; a test
// keeps host names out of their string literals.
//
// Adding a host is one file like dsh.go (a constructor returning a fresh
// Profile), its entry in Profiles, and its tests. Generic MCP and SDK log
// wording stays in monitor/classify; DSH logs nothing of its own that the
// watchdog classifies, so its profile carries no log rules.
package host
