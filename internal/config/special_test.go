package config

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadFIFO: a config path that is a FIFO is a config error naming the
// file (exit 2), at once: Load must not block in open(2) waiting for a
// writer, where the process would not even see SIGTERM.
func TestLoadFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(path); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), path+": cannot be read") || !strings.Contains(err.Error(), "FIFO") {
			t.Fatalf("Load = %v; want an ErrInvalid error naming %s as a FIFO", err, path)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load blocked on a FIFO")
	}
}
