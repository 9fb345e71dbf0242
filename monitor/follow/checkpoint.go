package follow

import (
	"github.com/mcpwatchdog/watchdog/internal/fsutil"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// checkpointVersion is the format version written to and accepted from the
// checkpoint file.
const checkpointVersion = 1

// maxCheckpointSize bounds what loadCheckpoint reads; a real checkpoint holds
// a few entries per followed file.
const maxCheckpointSize = 16 << 20

type checkpointDoc struct {
	Version   int        `json:"version"`
	Positions []Position `json:"positions"`
}

// loadCheckpoint reads the positions saved at path. A missing file is an
// empty checkpoint; one that cannot be parsed is ErrBadCheckpoint.
func loadCheckpoint(path string) ([]Position, error) {
	if path == "" {
		return nil, nil
	}
	// A state file: no link followed, no FIFO blocked on. Either is a
	// checkpoint the caller may discard; the next save replaces it.
	data, err := fsutil.ReadPrivate(path, maxCheckpointSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, fsutil.ErrSymlink), errors.Is(err, fsutil.ErrNotRegular), errors.Is(err, fsutil.ErrTooLarge):
		return nil, fmt.Errorf("%w: %w", ErrBadCheckpoint, err)
	case err != nil:
		return nil, fmt.Errorf("read checkpoint: %w", err)
	}
	ps, err := parseCheckpoint(data)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return ps, nil
}

// parseCheckpoint decodes a checkpoint document strictly: the file is ours,
// so anything unexpected means it is damaged, not a newer dialect.
func parseCheckpoint(data []byte) ([]Position, error) {
	if len(data) > maxCheckpointSize {
		return nil, fmt.Errorf("%w: %d bytes", ErrBadCheckpoint, len(data))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc checkpointDoc
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadCheckpoint, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data", ErrBadCheckpoint)
	}
	if doc.Version != checkpointVersion {
		return nil, fmt.Errorf("%w: version %d", ErrBadCheckpoint, doc.Version)
	}
	for _, p := range doc.Positions {
		if err := p.validate(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadCheckpoint, err)
		}
	}
	return doc.Positions, nil
}

// validate reports what makes p unusable as a resume point.
func (p Position) validate() error {
	switch {
	case p.Path == "":
		return errors.New("position without path")
	case len(p.Fingerprint) != fingerprintHexLen || strings.Trim(p.Fingerprint, "0123456789abcdef") != "":
		return fmt.Errorf("position %s: bad fingerprint %q", p.Path, p.Fingerprint)
	case p.Offset <= 0:
		return fmt.Errorf("position %s: bad offset %d", p.Path, p.Offset)
	}
	return nil
}

// writeCheckpoint replaces the checkpoint at path atomically: a crash leaves
// either the old or the new file, never a torn one. The file is 0600 since
// paths can say what a user runs.
func writeCheckpoint(path string, ps []Position) error {
	data, err := encodeCheckpoint(ps)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("checkpoint dir: %w", err)
	}
	if err := fsutil.WriteAtomic(path, data, 0o600); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// encodeCheckpoint sorts ps (for stable files) and encodes them.
func encodeCheckpoint(ps []Position) ([]byte, error) {
	slices.SortFunc(ps, func(a, b Position) int {
		return strings.Compare(a.Path+"\x00"+a.Fingerprint, b.Path+"\x00"+b.Fingerprint)
	})
	data, err := json.Marshal(checkpointDoc{Version: checkpointVersion, Positions: ps})
	if err != nil {
		return nil, fmt.Errorf("encode checkpoint: %w", err)
	}
	return append(data, '\n'), nil
}
