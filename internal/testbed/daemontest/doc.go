// Package daemontest is what the daemon's tests (internal/daemon) and the
// command's tests (cmd/watchdog) share: the journal read back, waits for
// its events, configs and log lines written, a daemon run as a process of
// its own, and the keep-warm rig (a real Go SDK server whose sessions
// expire). Only tests import it.
package daemontest
