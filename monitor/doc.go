// Package monitor groups the adapters that turn the world into observations:
// log lines (follow, classify), session-store snapshots (store), the host
// process (proc) and the patched client's own word (beacon). Monitors decide
// nothing; the health model does.
package monitor
