// Package hosts finds the MCP hosts on this machine and the servers each
// one uses: a host is found when one of its config files exists or its
// process runs. It reads the files (internal/hostconfig parses them) and
// looks at processes; it decides nothing but, through the pure Protect,
// what protects each server.
package hosts
