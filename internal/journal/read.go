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
)

// Record is one journal line read back.
type Record struct {
	Time    time.Time
	Kind    string
	Server  string
	Session string // masked, as written
	Detail  string
	Fields  map[string]any // every field, the contract's included
}

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
	f, err := os.Open(path)
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
		if rec, ok := parseRecord(sc.Bytes()); ok {
			recs = append(recs, rec)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("journal: read %s: %w", path, err)
	}
	return recs, st.Size() - start, nil
}

func parseRecord(line []byte) (Record, bool) {
	var m map[string]any
	if json.Unmarshal(line, &m) != nil {
		return Record{}, false
	}
	str := func(k string) string { s, _ := m[k].(string); return s }
	t, err := time.Parse(time.RFC3339Nano, str("time"))
	if err != nil || str("kind") == "" {
		return Record{}, false
	}
	return Record{Time: t, Kind: str("kind"), Server: str("server"), Session: str("session"), Detail: str("detail"), Fields: m}, true
}
