// Package healer acts on the health model's state: keep-warm pings, the
// patched client's recovery trigger and host restarts.
//
// Host restarts come in two halves. RestartLimiter is the pure policy
// (no I/O, the time passed in): the first restart is immediate, then the
// wait doubles from 10 s to 5 min, at most 5 restarts fit in 30 min, and
// an hour of health forgets the backoff (Kubernetes' crash backoff with a
// systemd-style start limit). Restarter does the work: SIGTERM, a grace,
// SIGKILL, then the configured argv (never a shell), detached in a session
// of its own, its output appended to STATE_DIR/host.log. It checks that
// the command exists before touching the running host.
package healer
