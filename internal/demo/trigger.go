package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// triggerPoll is the backstop scan, as the patched client polls too.
const triggerPoll = time.Second

// Watch answers recovery triggers until ctx ends: a file in TriggerDir
// named after the server (or "all") is deleted, then the session replaced.
func (s *Supervisor) Watch(ctx context.Context) error {
	dir := s.o.TriggerDir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("demo: trigger dir: %w", err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("demo: watch triggers: %w", err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		return fmt.Errorf("demo: watch %s: %w", dir, err)
	}
	tick := time.NewTicker(triggerPoll)
	defer tick.Stop()
	s.scan(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-w.Events:
			if !ok {
				return nil
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			s.log.Warn("demo: trigger watch", "err", err)
		case <-tick.C:
		}
		s.scan(ctx)
	}
}

// scan acts on every trigger for this server; the file goes first, so a
// trigger is answered once.
func (s *Supervisor) scan(ctx context.Context) {
	entries, err := os.ReadDir(s.o.TriggerDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || (name != s.o.Server && name != "all") {
			continue
		}
		if os.Remove(filepath.Join(s.o.TriggerDir, name)) != nil {
			continue
		}
		if err := s.Recover(ctx); err != nil {
			s.log.Warn("demo: recovery failed", "err", err)
		}
	}
}
