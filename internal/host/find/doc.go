// Package find finds the MCP hosts on this machine and the servers each
// one uses: a host is found when one of its config files exists or its
// process runs. It reads every scope a host reads (its own files, and the
// project files in the folders those name, the current directory and the
// ones asked for), each through the host's profile (internal/host) and
// internal/host/hostfile, and looks at processes; it decides nothing.
// internal/host/judge says what protects each server it found.
package find
