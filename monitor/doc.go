// Package monitor groups the adapters that turn the world into observations:
// log lines (follow, classify), session-store snapshots (store) and the host
// process (proc). Monitors decide nothing; the health model does.
package monitor
