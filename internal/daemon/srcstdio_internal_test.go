package daemon

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// A live supervisor's socket found between its bind and its listen
// refuses for a moment: the link waits for it and never removes it. A
// refusing socket whose process is gone is removed at once.
func TestStdioDialWaitsForALiveSupervisorsListen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := &stdioLinks{s: &stdioSource{dir: dir, log: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	path := filepath.Join(dir, strconv.Itoa(os.Getpid())+".sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
	listened := make(chan error, 1)
	time.AfterFunc(60*time.Millisecond, func() { listened <- syscall.Listen(fd, 1) })
	conn, err := l.dial(context.Background(), path, os.Getpid())
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	conn.Close()
	if err := <-listened; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); err != nil {
		t.Errorf("the live supervisor's socket: %v", err)
	}

	deadFd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(deadFd)
	dead := filepath.Join(dir, "1.sock")
	if err := syscall.Bind(deadFd, &syscall.SockaddrUnix{Name: dead}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.dial(context.Background(), dead, exitedPIDOf(t)); err == nil {
		t.Fatal("a socket nobody listens on linked")
	}
	if _, err := os.Lstat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead supervisor's socket is still there: %v", err)
	}
}

func exitedPIDOf(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
