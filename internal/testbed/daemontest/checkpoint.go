package daemontest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpwatchdog/watchdog/monitor/follow"
)

// CheckpointName is the daemon's log-follower checkpoint in its state dir:
// the positions it acknowledged, which a restart resumes from.
const CheckpointName = "follow-checkpoint.json"

// Acked is the furthest position of the log at path that the daemon of
// stateDir has acknowledged and saved (0: none yet).
func Acked(t *testing.T, stateDir, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(stateDir, CheckpointName))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Positions []follow.Position `json:"positions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", CheckpointName, err)
	}
	var off int64
	for _, p := range doc.Positions {
		if p.Path == path && p.Offset > off {
			off = p.Offset
		}
	}
	return off
}

// Size is the size of the file at path.
func Size(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}
