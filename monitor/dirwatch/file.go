package dirwatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// FileSettle is how long a followed file must be quiet before it is read:
// an editor's save, or adopt's rename, comes as a few events.
const FileSettle = 200 * time.Millisecond

// MaxFileBytes bounds what a File reads: the files it follows are configs
// and records, small by nature; a bigger one is an error, not a read.
const MaxFileBytes = 64 << 10

// File follows one file's bytes through a directory watch on its folder
// (the hub's, or one of its own) and, once the file has been quiet for
// FileSettle after a change of its bytes, emits what Changed makes of them
// (nil data: the file is gone). The bytes it compares with are read when
// it is made, so a change while its owner starts is not missed. It is a
// supervise.Source of Ts.
type File[T any] struct {
	Label   string
	Path    string
	Hub     *Hub // nil: a watch of its own
	Changed func(ctx context.Context, data []byte, err error) T
	// Initial, when set, is emitted once the watch is set, on every run:
	// what changed while nobody watched is looked at at once.
	Initial func() T
	last    []byte
}

// NewFile follows path; see File.
func NewFile[T any](label, path string, hub *Hub, changed func(context.Context, []byte, error) T) *File[T] {
	last, _ := ReadFile(path)
	return &File[T]{Label: label, Path: path, Hub: hub, Changed: changed, last: last}
}

// Name says which file it follows.
func (s *File[T]) Name() string { return s.Label }

// Run follows the file until ctx ends or emit says stop.
func (s *File[T]) Run(ctx context.Context, emit func(T) bool) error {
	w, err := Open(ctx, s.Hub)
	if err == nil {
		defer w.Close()
		err = w.Add(filepath.Dir(s.Path))
	}
	if err != nil {
		return fmt.Errorf("watching %s: %w", s.Path, err)
	}
	if s.Initial != nil && !emit(s.Initial()) {
		return nil
	}
	var settle <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("the directory watch closed")
			}
			if filepath.Clean(ev.Name) == filepath.Clean(s.Path) {
				settle = time.After(FileSettle)
			}
		case <-w.Errors:
			settle = time.After(FileSettle) // an overflow: look again
		case <-settle:
			settle = nil
			data, err := ReadFile(s.Path)
			if bytes.Equal(data, s.last) && err == nil {
				continue
			}
			s.last = data
			if !emit(s.Changed(ctx, data, err)) {
				return nil
			}
		}
	}
}

// ReadFile reads a followed file as File does: nil, nil when it is gone;
// only a regular file, at most MaxFileBytes.
func ReadFile(path string) ([]byte, error) {
	b, err := fsutil.ReadRegular(path, MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}
