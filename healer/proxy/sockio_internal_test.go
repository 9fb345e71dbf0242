package proxy

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// tcpPair is a loopback TCP connection's two ends.
func tcpPair(t *testing.T) (client, server *net.TCPConn) {
	t.Helper()
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan *net.TCPConn, 1)
	go func() {
		c, _ := ln.AcceptTCP()
		accepted <- c
	}()
	client, err = net.DialTCP("tcp", nil, ln.Addr().(*net.TCPAddr))
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// A request handed to Send goes out with the next Read, which then waits
// for the answer and returns it; sizes past what a socket takes at once
// go out whole too (the rest written the ordinary way).
func TestSendGoesOutWithTheRead(t *testing.T) {
	t.Parallel()
	for _, size := range []int{1, 400, 64 << 10, 8 << 20} {
		client, server := tcpPair(t)
		req := bytes.Repeat([]byte("r"), size)
		got := make(chan []byte, 1)
		go func() {
			b := make([]byte, size)
			if _, err := io.ReadFull(server, b); err != nil {
				got <- nil
				return
			}
			got <- b
			_, _ = server.Write([]byte("answer"))
		}()
		s := newSockIO(client)
		s.Send(req)
		buf := make([]byte, 64)
		_ = client.SetReadDeadline(time.Now().Add(30 * time.Second))
		n, err := io.ReadAtLeast(s, buf, len("answer"))
		if err != nil || string(buf[:n]) != "answer" {
			t.Fatalf("%d bytes: read %q, %v; want the answer", size, buf[:n], err)
		}
		if b := <-got; !bytes.Equal(b, req) {
			t.Fatalf("%d bytes: the server got %d bytes, not the request", size, len(b))
		}
		if s.Unsent() {
			t.Errorf("%d bytes: Unsent after a request that went", size)
		}
	}
}

// A connection the server reset before the request: the Read fails and
// Unsent says nothing went, so the caller may send it on another.
func TestSendOnAResetConnectionIsUnsent(t *testing.T) {
	t.Parallel()
	client, server := tcpPair(t)
	_ = server.SetLinger(0)
	server.Close() // RST
	s := newSockIO(client)
	// Wait until the reset has arrived: a peek sees the end.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_ = client.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		var one [1]byte
		if _, err := client.Read(one[:]); err != nil && !isTimeout(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the reset never arrived")
		}
	}
	_ = client.SetReadDeadline(time.Now().Add(10 * time.Second))
	s.Send([]byte("POST / HTTP/1.1\r\n\r\n"))
	if _, err := s.Read(make([]byte, 16)); err == nil {
		t.Fatal("read an answer on a reset connection")
	}
	if !s.Unsent() {
		t.Error("Unsent is false after a write that failed before a byte went")
	}
}
