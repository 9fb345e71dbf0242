package stdio

import (
	"context"
	"io"
	"log/slog"
	"net"
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
func TestFollowerDialWaitsForALiveSupervisorsListen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := &stdioLinks{s: &Follower{Dir: dir, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}}
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

// A link that breaks while its supervisor runs on (its socket still there)
// is made again at once, not at the next rescan: the follower says the
// link ended and was made again.
func TestFollowerRelinksABrokenLinkAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, strconv.Itoa(os.Getpid())+".sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conns := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns <- c
		}
	}()
	items := make(chan Report, 16)
	src := &Follower{Dir: dir, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), RelinkAfter: time.Nanosecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- src.Run(ctx, func(r Report) bool { items <- r; return true }) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	first := nextConn(t, conns)
	wantStdio(t, items, Linked)
	_ = first.Close()
	wantStdio(t, items, Unlinked)
	second := nextConn(t, conns) // well before the 30 s rescan
	defer second.Close()
	wantStdio(t, items, Linked)
}

func nextConn(t *testing.T, conns <-chan net.Conn) net.Conn {
	t.Helper()
	select {
	case c := <-conns:
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("the source did not link within 5 s")
		return nil
	}
}

func wantStdio(t *testing.T, items <-chan Report, kind string) {
	t.Helper()
	select {
	case r := <-items:
		if r.Kind != kind || r.PID != os.Getpid() {
			t.Fatalf("report %+v, want the supervisor's %s", r, kind)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s within 5 s", kind)
	}
}
