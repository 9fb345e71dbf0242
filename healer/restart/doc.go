// Package restart restarts an MCP host, within limits, as the heal
// ladder's last resort.
//
// It comes in two halves. Limiter is the pure policy (no I/O, the time
// passed in): the first restart is immediate, then the wait doubles from
// 10 s to 5 min, at most 5 restarts fit in 30 min, and an hour of health
// forgets the backoff (Kubernetes' crash backoff with a systemd-style
// start limit); History carries it across the watchdog's own restarts.
// Restarter does the work: SIGTERM, a grace, SIGKILL, then the configured
// argv (never a shell), detached in a session of its own, its output
// appended to STATE_DIR/host.log. It checks that the command exists before
// touching the running host, and that the process it stops is the host it
// saw (Process: a pid with its start time).
package restart
