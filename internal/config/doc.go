// Package config reads, checks and expands the watchdog's TOML config file
// (the format is in docs/USAGE.md, "Config").
//
// # Defaults
//
// Load starts from Default and decodes the file over it, so a key the file
// leaves out keeps its default (the [host] table included: a file that sets
// only host.name still gets the host profile's process, port and so on).
// The [host] defaults are those of the profile host.name names (package
// internal/host), else of the default host, DSH. The server
// list is the exception: when the file says anything about `server` (one or
// more [[server]] tables, or `server = []`), its list replaces the default one
// as a whole, and `server = []` means "watch no server". Because a new array
// element always starts from its zero value, servers are decoded into a
// shadow struct whose keep_warm and idle_timeout are pointers; a nil pointer
// means the key was left out and gets the per-server default (keep_warm true,
// idle_timeout 12h). Other omitted server keys stay empty ("discovered" or
// "none").
//
// # No file: the machine as found
//
// Load with no file returns Default (DSH and Nowledge Mem), what commands
// that need no server list use. The daemon and doctor take AsFound
// instead: the hosts and HTTP servers the host finder found (adopted ones
// as the server adopt's record names, through its proxy), Nowledge Mem
// only where its folders are; Config.Found then says what and why.
//
// # Expansion
//
// Only values that are paths are expanded, at Load time: state_dir,
// host.logs, host.client_module, server.logs and server.store. A leading `~`
// or `~/` becomes the home directory (`~user` is not supported); `${NAME}`
// becomes the environment variable NAME, and an unset or empty variable is
// an error naming it. A `$` not followed by `{` is kept as written; there is
// no escape for a literal `${`. host.restart is an argv run without a shell
// and is used exactly as written. Header values are expanded only when used
// (Server.ExpandedHeaders) so that secrets never sit in a Config that doctor
// or status might print. Default returns paths unexpanded; Load expands them.
//
// # Errors
//
// Every error from Load, Validate, ResolveStateDir's expansion and
// ExpandedHeaders wraps ErrInvalid, which the CLI maps to exit code 2; only
// an unknown home or config directory does not (nothing to fix in the
// file). Each
// problem is an *Error naming the file, the line (and column for parser
// errors) and the key, e.g.
//
//	config.toml:12: server[1].url: "ftp://x" is not an http(s) URL; use http://host:port/path
//
// Several problems are joined (errors.Join), one per line, the first few
// dozen only. Array elements are counted from 0: server[1] is the second
// [[server]] table.
//
// Lines come from a walk over the document with go-toml's unstable parser
// (index.go): it records the line of every key path, counting [[server]]
// tables, so that both the decoder's errors (which name keys without the
// server index) and Validate's findings can point at a line. A key that the
// file does not contain is reported at the line of its table, or with no line
// when the value came from the defaults.
package config
