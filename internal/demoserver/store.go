package demoserver

import (
	"github.com/mcpwatchdog/watchdog/internal/fsutil"

	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// StoreInterval is the shortest time between two background rewrites of the
// store file; changes in between are coalesced into the next write.
const StoreInterval = 20 * time.Millisecond

// storeFile is the JSON document of the session store.
type storeFile struct {
	Sessions []storeSession `json:"sessions"`
}

type storeSession struct {
	ID           string `json:"id"`
	ClientName   string `json:"client_name"`
	CreatedAt    string `json:"created_at"`
	LastActivity string `json:"last_activity"`
}

// encodeStore renders the live sessions as the store document.
func encodeStore(live []entry) ([]byte, error) {
	doc := storeFile{Sessions: make([]storeSession, 0, len(live))}
	for _, e := range live {
		doc.Sessions = append(doc.Sessions, storeSession{
			ID:           e.id,
			ClientName:   e.client,
			CreatedAt:    e.created.UTC().Format(time.RFC3339Nano),
			LastActivity: e.last.UTC().Format(time.RFC3339Nano),
		})
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode session store: %w", err)
	}
	return append(b, '\n'), nil
}

// storeWriter mirrors the tracker into a file. A nil *storeWriter (no
// StorePath) does nothing.
type storeWriter struct {
	path   string
	source func() []entry
	dirty  chan struct{} // capacity 1: a pending change

	mu   sync.Mutex // serialises writes so the newest snapshot lands last
	last []byte
}

func newStoreWriter(path string, source func() []entry) *storeWriter {
	if path == "" {
		return nil
	}
	return &storeWriter{path: path, source: source, dirty: make(chan struct{}, 1)}
}

// notify records that the sessions changed, without blocking.
func (w *storeWriter) notify() {
	if w == nil {
		return
	}
	select {
	case w.dirty <- struct{}{}:
	default:
	}
}

// run rewrites the file after changes, at most once per StoreInterval,
// until ctx ends. onErr receives write failures.
func (w *storeWriter) run(ctx context.Context, onErr func(error)) {
	if w == nil {
		return
	}
	pause := time.NewTimer(0)
	defer pause.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.dirty:
		}
		if err := w.flush(); err != nil {
			onErr(err)
		}
		pause.Reset(StoreInterval)
		select {
		case <-ctx.Done():
			return
		case <-pause.C:
		}
	}
}

// flush writes the current snapshot now if it differs from the last write.
func (w *storeWriter) flush() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	b, err := encodeStore(w.source())
	if err != nil {
		return err
	}
	if w.last != nil && bytes.Equal(b, w.last) {
		return nil
	}
	if err := fsutil.WriteAtomic(w.path, b, 0o600); err != nil {
		return err
	}
	w.last = b
	return nil
}
