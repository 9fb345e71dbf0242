// Package tailbuf keeps the end of a child process's output, for error
// messages: os/exec writes from its own goroutine while the caller reads.
package tailbuf

import "sync"

// Buffer keeps the last Max bytes written to it. Safe for concurrent use.
type Buffer struct {
	Max int
	mu  sync.Mutex
	b   []byte
}

func (w *Buffer) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b = append(w.b, b...)
	if over := len(w.b) - w.Max; over > 0 {
		w.b = append(w.b[:0], w.b[over:]...)
	}
	return len(b), nil
}

func (w *Buffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.b)
}
