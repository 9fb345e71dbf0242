// Package hostfile reads the MCP servers out of a host's own config file
// and rewrites their URLs (and stdio commands) in place, every other byte untouched.
//
// A file is parsed by its format's own parser (hujson for JSON with
// comments, go-toml's unstable parser for TOML, yaml.v3 nodes for YAML)
// into one small tree whose strings remember their byte range in the file.
// The host's Layout (internal/host) then says where the servers are.
// Rewrite splices new string literals into those ranges and parses the
// result again, to prove that only those values changed.
//
// It does no I/O: bytes in, bytes out. Reading, backups and the atomic
// write are the caller's (healer/adopt).
package hostfile
