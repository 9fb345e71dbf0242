package metrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/peer"
)

// Errors callers branch on.
var (
	// ErrNotLoopback: the listen address is not 127.0.0.0/8, ::1 or
	// localhost. Metrics are not meant for the network.
	ErrNotLoopback = errors.New("metrics: listen address is not loopback")
	// ErrBadAddress: the listen address is not host:port with a numeric port.
	ErrBadAddress = errors.New("metrics: listen address is not host:port")
)

const (
	readHeaderTimeout = 10 * time.Second
	shutdownGrace     = 5 * time.Second // for a scrape in flight when ctx ends
)

// CheckLoopback validates listen without listening and returns the address
// to bind: "localhost" is taken literally (no lookup) and bound as
// 127.0.0.1, so no hosts file or DNS answer can move it off loopback.
func CheckLoopback(listen string) (string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %w", ErrBadAddress, listen, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("%w: %q has no numeric port", ErrBadAddress, listen)
	}
	if strings.EqualFold(host, "localhost") {
		return net.JoinHostPort("127.0.0.1", port), nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.Unmap().IsLoopback() {
		return "", fmt.Errorf("%w: %q", ErrNotLoopback, listen)
	}
	return listen, nil
}

// Listen checks listen with CheckLoopback, then listens on it. Tests and
// callers that need the bound address (listen "127.0.0.1:0") use Listen
// and ServeListener instead of Serve.
func Listen(listen string) (net.Listener, error) {
	addr, err := CheckLoopback(listen)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", listen, err)
	}
	return ln, nil
}

// Serve serves m on /metrics at listen until ctx is done, then returns
// nil. A non-loopback address is refused with ErrNotLoopback before
// anything listens; a listen failure (port in use) is returned wrapped.
func Serve(ctx context.Context, listen string, m *Metrics, logger *slog.Logger) error {
	ln, err := Listen(listen)
	if err != nil {
		return err
	}
	return ServeListener(ctx, ln, m, logger)
}

// ServeListener is Serve on a listener of the caller's; it closes ln. A
// listener not bound to a loopback TCP address is refused with
// ErrNotLoopback. Only the user the process runs as is served: another
// user's connection is closed before a byte is read (peer.Own) and
// reported to Options.Refused.
func ServeListener(ctx context.Context, ln net.Listener, m *Metrics, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if !loopbackListener(ln) {
		ln.Close()
		return fmt.Errorf("%w: bound to %s", ErrNotLoopback, ln.Addr())
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: readHeaderTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	logger.Info("metrics: serving", "addr", ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(peer.Own(ln, m.refusedFunc(logger))) }()
	select {
	case err := <-errc:
		return fmt.Errorf("metrics: serve on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close() // a scrape outlived the grace period
	}
	<-errc // http.ErrServerClosed: the serving goroutine has ended
	logger.Info("metrics: stopped", "addr", ln.Addr().String())
	return nil
}

func (m *Metrics) refusedFunc(logger *slog.Logger) func(int) {
	if m.refused != nil {
		return m.refused
	}
	return func(uid int) { logger.Warn("metrics: refused a connection of another user", "uid", uid) }
}

func loopbackListener(ln net.Listener) bool {
	tcp, ok := ln.Addr().(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
