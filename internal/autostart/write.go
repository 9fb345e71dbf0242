package autostart

import "github.com/mcpwatchdog/watchdog/internal/fsutil"

// writeAtomic: a login item is read by launchd or the session manager at any
// moment, so it is never seen half written.
func writeAtomic(path string, data []byte) error {
	return fsutil.WriteAtomic(path, data, 0o644)
}
