package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// tailEvery paces the journal reader; a demo needs no faster narration.
const tailEvery = 20 * time.Millisecond

// Record is one journal event as the daemon wrote it, read back by the
// journal's own decoder.
type Record = journal.Record

// Tail reads a journal file as it is appended to, keeping every record.
type Tail struct {
	path   string
	onNew  func(Record)
	mu     sync.Mutex
	recs   []Record
	offset int64
	rest   []byte // a line whose newline has not arrived yet
}

// NewTail follows path from its start; onNew (may be nil) sees each new
// record, on the Run goroutine.
func NewTail(path string, onNew func(Record)) *Tail {
	return &Tail{path: path, onNew: onNew}
}

// Run polls the file until ctx ends.
func (t *Tail) Run(ctx context.Context) {
	tick := time.NewTicker(tailEvery)
	defer tick.Stop()
	for {
		t.poll()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// poll reads what was appended since the last poll; only Run calls it.
func (t *Tail) poll() {
	f, err := os.Open(t.path)
	if err != nil {
		return
	}
	defer f.Close()
	if _, err := f.Seek(t.offset, io.SeekStart); err != nil {
		return
	}
	b, err := io.ReadAll(f)
	if err != nil || len(b) == 0 {
		return
	}
	t.offset += int64(len(b))
	buf := append(t.rest, b...)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		if rec, err := parseRecord(buf[:i]); err == nil {
			t.mu.Lock()
			t.recs = append(t.recs, rec)
			t.mu.Unlock()
			if t.onNew != nil {
				t.onNew(rec)
			}
		}
		buf = buf[i+1:]
	}
	t.rest = append([]byte(nil), buf...)
}

func parseRecord(line []byte) (Record, error) {
	r, err := journal.Decode(line)
	if err != nil {
		return Record{}, fmt.Errorf("demo: %w", err)
	}
	return r, nil
}

// Len is how many records were read so far.
func (t *Tail) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.recs)
}

// Since returns the records from index from on.
func (t *Tail) Since(from int) []Record {
	t.mu.Lock()
	defer t.mu.Unlock()
	if from >= len(t.recs) {
		return nil
	}
	return append([]Record(nil), t.recs[from:]...)
}

// errWait: what an act waited for did not happen in time.
var errWait = errors.New("did not happen in time")

// Wait returns the first record from index from on that match accepts,
// polling until it appears or ctx ends.
func (t *Tail) Wait(ctx context.Context, from int, what string, match func(Record) bool) (Record, error) {
	for {
		for _, r := range t.Since(from) {
			if match(r) {
				return r, nil
			}
		}
		select {
		case <-ctx.Done():
			return Record{}, fmt.Errorf("%s: %w", what, errWait)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
