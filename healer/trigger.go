package healer

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// TriggerConfirmWithin: a triggered recovery must show a new session of
// the client within this long, or the heal failed.
const TriggerConfirmWithin = 10 * time.Second

// WriteTrigger asks the patched client to recover server. dir is the
// folder the client watches for triggers (the host profile's
// Client.TriggerDir under the user's home): a file named after one of its
// servers (or "all") makes it take that server's settled generation down
// and reconnect. The file is written to a temp name and renamed, so the
// client never reads half of it; its content (the time) only helps a
// person reading the folder.
func WriteTrigger(dir, server string, now time.Time) error {
	if server == "" || server != filepath.Base(server) || server == "." || server == ".." {
		return fmt.Errorf("healer: %q cannot name a trigger file", server)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("healer: recovery trigger: %w", err)
	}
	if err := fsutil.WriteAtomic(filepath.Join(dir, server), []byte(now.UTC().Format(time.RFC3339Nano)+"\n"), 0o600); err != nil {
		return fmt.Errorf("healer: recovery trigger: %w", err)
	}
	return nil
}
