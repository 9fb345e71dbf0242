package timeline

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/durfmt"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// FileName is the page's default name in the state directory.
const FileName = "timeline.html"

// ErrNoJournal: the state directory has no journal to draw.
var ErrNoJournal = errors.New("no journal")

// WriteOptions say which window of which journal goes to which file.
type WriteOptions struct {
	StateDir string
	Out      string // "": StateDir/timeline.html
	// Since: the page shows the last Since before Now; 0: the journal's
	// own first to last event (JournalWindow).
	Since    time.Duration
	Now      time.Time
	Location *time.Location
}

// WriteFile draws the window of the journal in StateDir that o asks for
// and writes the page to Out at once (never half a page), returning its
// path.
func WriteFile(o WriteOptions) (string, error) {
	out := o.Out
	if out == "" {
		out = filepath.Join(o.StateDir, FileName)
	}
	live := filepath.Join(o.StateDir, journal.FileName)
	if _, err := os.Lstat(live); err != nil {
		return "", fmt.Errorf("%w at %s (%w): the daemon has not run with this state directory", ErrNoJournal, live, err)
	}
	from, to := o.Now.Add(-o.Since), o.Now
	if o.Since == 0 {
		from = time.Time{} // every file kept; JournalWindow cuts it to MaxSpan
	}
	recs, err := journal.ReadSince(o.StateDir, from)
	if err != nil {
		return "", err
	}
	window := "the last " + durfmt.Short(o.Since)
	if o.Since == 0 {
		from, to = JournalWindow(recs, o.Now)
		window = "the journal's first to last event"
	}
	var buf bytes.Buffer
	page := Build(recs, from, to)
	if err := Render(&buf, page, Options{Location: o.Location, Generated: o.Now, Source: live, Window: window}); err != nil {
		return "", err
	}
	if err := fsutil.WriteAtomic(out, buf.Bytes(), 0o600); err != nil {
		return "", fmt.Errorf("timeline: %w", err)
	}
	return out, nil
}
