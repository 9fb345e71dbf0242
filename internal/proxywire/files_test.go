package proxywire_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

// unixPair is a connected pair of unix stream sockets.
func unixPair(t *testing.T) (a, b *net.UnixConn) {
	t.Helper()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(t.TempDir(), "s"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan *net.UnixConn, 1)
	go func() {
		c, _ := ln.AcceptUnix()
		done <- c
	}()
	a, err = net.DialUnix("unix", nil, ln.Addr().(*net.UnixAddr))
	if err != nil {
		t.Fatal(err)
	}
	b = <-done
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// A listening socket handed over with its line is the same socket on the
// other side: a connection to its address is accepted there, and the
// lines around it read as ever.
func TestSocketsRideWithTheirLine(t *testing.T) {
	a, b := unixPair(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	before, _ := proxywire.Encode(proxywire.Message{Warning: &proxywire.Warning{Detail: "before"}})
	line, _ := proxywire.Encode(proxywire.Message{Sockets: &proxywire.Sockets{Listen: []string{ln.Addr().String()}}})
	after, _ := proxywire.Encode(proxywire.Message{Warning: &proxywire.Warning{Detail: "after"}})
	_, err1 := a.Write(before)
	err2 := proxywire.WriteWithFiles(a, line, []*os.File{f})
	_, err3 := a.Write(after)
	f.Close()
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	r := proxywire.NewFileReader(b)
	defer r.Close()
	if m, err := r.Read(); err != nil || m.Warning == nil || m.Warning.Detail != "before" {
		t.Fatalf("first line %+v, %v", m, err)
	}
	m, err := r.Read()
	if err != nil || m.Sockets == nil || len(m.Sockets.Listen) != 1 {
		t.Fatalf("second line %+v, %v; want the sockets line", m, err)
	}
	files, err := r.Files(1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := net.FileListener(files[0])
	files[0].Close()
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	ln.Close() // the original goes: the one handed over still listens
	c, err := net.Dial("tcp", m.Sockets.Listen[0])
	if err != nil {
		t.Fatalf("dial the handed-over socket's address: %v", err)
	}
	c.Close()
	if acc, err := got.Accept(); err != nil {
		t.Fatalf("accept on the handed-over socket: %v", err)
	} else {
		acc.Close()
	}
	if m, err := r.Read(); err != nil || m.Warning == nil || m.Warning.Detail != "after" {
		t.Fatalf("third line %+v, %v", m, err)
	}
	if _, err := r.Files(1); !errors.Is(err, proxywire.ErrNoFiles) {
		t.Fatalf("a second take: %v, want ErrNoFiles", err)
	}
}
