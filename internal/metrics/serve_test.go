package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestServeRefusesNonLoopback(t *testing.T) {
	tests := []struct {
		listen string
		want   error
	}{
		{"0.0.0.0:9464", ErrNotLoopback},
		{":9464", ErrNotLoopback},
		{"192.168.1.10:9464", ErrNotLoopback},
		{"[::]:9464", ErrNotLoopback},
		{"[::ffff:0.0.0.0]:9464", ErrNotLoopback},
		{"example.com:9464", ErrNotLoopback}, // names other than localhost are never looked up
		{"localhost.localdomain:9464", ErrNotLoopback},
		{"127.0.0.1", ErrBadAddress},
		{"127.0.0.1:http", ErrBadAddress},
		{"127.0.0.1:70000", ErrBadAddress},
		{"", ErrBadAddress},
	}
	for _, tc := range tests {
		t.Run(tc.listen, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), waitLong)
			defer cancel()
			err := Serve(ctx, tc.listen, New(), nil)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Serve(%q) = %v, want %v", tc.listen, err, tc.want)
			}
			if ctx.Err() != nil {
				t.Fatalf("Serve(%q) waited for ctx instead of refusing", tc.listen)
			}
		})
	}
}

func TestCheckLoopbackAccepts(t *testing.T) {
	tests := []struct{ listen, bind string }{
		{"127.0.0.1:9464", "127.0.0.1:9464"},
		{"127.1.2.3:80", "127.1.2.3:80"},
		{"[::1]:9464", "[::1]:9464"},
		{"[::ffff:127.0.0.1]:9464", "[::ffff:127.0.0.1]:9464"},
		{"localhost:9464", "127.0.0.1:9464"},
		{"LocalHost:0", "127.0.0.1:0"},
	}
	for _, tc := range tests {
		bind, err := CheckLoopback(tc.listen)
		if err != nil || bind != tc.bind {
			t.Errorf("CheckLoopback(%q) = %q, %v; want %q", tc.listen, bind, err, tc.bind)
		}
	}
}

// TestListenAccepts listens on each accepted address and scrapes it. ::1
// may be missing on the machine: then the error must be a listen error,
// not a refusal.
func TestListenAccepts(t *testing.T) {
	for _, listen := range []string{"127.0.0.1:0", "[::1]:0", "localhost:0"} {
		t.Run(listen, func(t *testing.T) {
			t.Parallel()
			ln, err := Listen(listen)
			if err != nil {
				var op *net.OpError
				if listen != "[::1]:0" || errors.Is(err, ErrNotLoopback) || !errors.As(err, &op) {
					t.Fatalf("Listen(%q): %v", listen, err)
				}
				return
			}
			if tcp := ln.Addr().(*net.TCPAddr); !tcp.IP.IsLoopback() || tcp.Port == 0 {
				t.Errorf("bound to %v", tcp)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- ServeListener(ctx, ln, New(), nil) }()
			if raw := scrapeRaw(t, "http://"+ln.Addr().String()+"/metrics"); !strings.Contains(raw, restart+" 0") {
				t.Errorf("scrape lacks %s:\n%s", restart, raw)
			}
			cancel()
			if err := waitDone(t, done); err != nil {
				t.Errorf("ServeListener: %v", err)
			}
		})
	}
}

func waitDone(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(waitLong):
		t.Fatal("server did not stop after cancel")
		return nil
	}
}

// TestServeStopsOnCancel runs Serve itself, learns its port from the log,
// scrapes, cancels and checks the port is closed.
func TestServeStopsOnCancel(t *testing.T) {
	m := New()
	m.Count(event{Kind: "host_restarted"})
	logger, records := newRecordLogger()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, "127.0.0.1:0", m, logger) }()
	addr := waitAddr(t, records)
	if raw := scrapeRaw(t, "http://"+addr+"/metrics"); !strings.Contains(raw, restart+" 1") {
		t.Fatalf("scrape lacks %s 1:\n%s", restart, raw)
	}
	cancel()
	if err := waitDone(t, done); err != nil {
		t.Fatalf("Serve after cancel = %v, want nil", err)
	}
	if !dialFails(addr) {
		t.Errorf("%s still accepts connections after Serve returned", addr)
	}
}

// TestServeOnlyMetricsPath: nothing but /metrics is served.
func TestServeOnlyMetricsPath(t *testing.T) {
	url := strings.TrimSuffix(serveForTest(t, New()), "/metrics")
	for _, path := range []string{"/", "/debug/pprof/", "/metrics/extra"} {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %s, want 404", path, resp.Status)
		}
	}
}

// TestServePortInUse: a port taken by another listener is a wrapped listen
// error, not a refusal.
func TestServePortInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	err = Serve(ctx, busy.Addr().String(), New(), nil)
	if err == nil || errors.Is(err, ErrNotLoopback) || !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("Serve on a busy port = %v, want EADDRINUSE", err)
	}
	if !strings.Contains(err.Error(), busy.Addr().String()) {
		t.Errorf("error %q does not name the address", err)
	}
}

// TestServeListenerRefusesNonTCP: a listener not on loopback TCP is
// refused and closed.
func TestServeListenerRefusesNonTCP(t *testing.T) {
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "m.sock"))
	if err != nil {
		t.Fatal(err)
	}
	err = ServeListener(context.Background(), ln, New(), nil)
	if !errors.Is(err, ErrNotLoopback) {
		t.Fatalf("ServeListener(unix) = %v, want ErrNotLoopback", err)
	}
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("listener not closed: Accept = %v", err)
	}
}
