package journal

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// Record is one journal line read back: an event whose Session is masked,
// as written, and whose Extra holds the fields outside the vocabulary as
// JSON decoded them. health.Event(r) is the event again.
type Record health.Event

// ReadTail returns the records of the last maxBytes of the live journal
// (and of the newest rotated file when the live one is shorter), oldest
// first. Lines that do not parse, such as a first line cut by the window,
// are passed over.
func ReadTail(dir string, maxBytes int64) ([]Record, error) {
	live := filepath.Join(dir, FileName)
	recs, used, err := readTail(live, maxBytes)
	if err != nil {
		return nil, err
	}
	if used < maxBytes {
		older, _, err := readTail(live+".1", maxBytes-used)
		if err != nil {
			return nil, err
		}
		recs = append(older, recs...)
	}
	return recs, nil
}

func readTail(path string, maxBytes int64) ([]Record, int64, error) {
	f, err := fsutil.OpenPrivate(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("journal: %w", err)
	}
	start := max(st.Size()-maxBytes, 0)
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return nil, 0, fmt.Errorf("journal: %w", err)
	}
	var recs []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		if rec, err := Decode(sc.Bytes()); err == nil {
			recs = append(recs, rec)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("journal: read %s: %w", path, err)
	}
	return recs, st.Size() - start, nil
}

// ErrNotEvent is returned by Decode for a line that is not a journal event:
// not JSON, or without a time or a kind.
var ErrNotEvent = errors.New("journal: not an event line")

// Decode reads one journal line back: the contract's fields, the typed
// fields under their journal names, and the rest as Extra. The names never
// changed, so lines written by any version read alike.
func Decode(line []byte) (Record, error) {
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		return Record{}, fmt.Errorf("%w: %w", ErrNotEvent, err)
	}
	t, err := time.Parse(time.RFC3339Nano, str(m, "time"))
	if err != nil {
		return Record{}, fmt.Errorf("%w: time: %w", ErrNotEvent, err)
	}
	if str(m, "kind") == "" {
		return Record{}, fmt.Errorf("%w: no kind", ErrNotEvent)
	}
	r := Record{Time: t, Kind: health.EventKind(str(m, "kind")), Server: str(m, "server"), Session: str(m, "session"),
		Detail: str(m, "detail"), Log: getLog(m), Facts: getFacts(health.EventKind(str(m, "kind")), m)}
	for k, v := range m {
		if reserved(k) {
			continue
		}
		if r.Extra == nil {
			r.Extra = map[string]any{}
		}
		r.Extra[k] = v
	}
	return r, nil
}

// maxRotated bounds how many rotated files ReadSince looks for.
const maxRotated = 100

// ReadSince returns the records at or after since of the live journal and
// its rotated files, oldest first. A rotated file last written before
// since is not read at all.
func ReadSince(dir string, since time.Time) ([]Record, error) {
	live := filepath.Join(dir, FileName)
	paths := []string{live}
	for i := 1; i <= maxRotated; i++ {
		p := fmt.Sprintf("%s.%d", live, i)
		st, err := os.Lstat(p)
		if err != nil || st.ModTime().Before(since) {
			break // the next ones are older still
		}
		paths = append(paths, p)
	}
	var recs []Record
	for i := len(paths) - 1; i >= 0; i-- {
		got, err := readSince(paths[i], since)
		if err != nil {
			return nil, err
		}
		recs = append(recs, got...)
	}
	return recs, nil
}

func readSince(path string, since time.Time) ([]Record, error) {
	f, err := fsutil.OpenPrivate(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	var recs []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		if rec, err := Decode(sc.Bytes()); err == nil && !rec.Time.Before(since) {
			recs = append(recs, rec)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("journal: read %s: %w", path, err)
	}
	return recs, nil
}
