// Package control is the daemon's local control socket: HTTP over a unix
// socket that only the owning user can reach. The running daemon serves it;
// `watchdog status` and `watchdog heal` talk to it through Client.
package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/peer"
)

// ErrUnknownServer is returned by a Handler's Heal for a server name it does
// not know; Serve answers it with 404, and Client.Heal returns an error
// wrapping it.
var ErrUnknownServer = errors.New("unknown server")

// Handler answers the control requests. Implementations must be safe for
// concurrent use: each request runs on its own goroutine.
type Handler interface {
	// Status returns the status document; it is sent as JSON.
	Status(ctx context.Context) (any, error)
	// Heal heals one server now, or all of them when server is "". It
	// returns an error wrapping ErrUnknownServer for a name it does not know.
	Heal(ctx context.Context, server string) (any, error)
}

// Refuser is a Handler that hears of each connection of another local
// user that Serve closed unread (their uid; peer.Unknown when not found).
// Refused must not block. A Handler that is not one has them logged.
type Refuser interface {
	Refused(uid int)
}

// Server tunables.
const (
	readHeaderTimeout = 5 * time.Second
	shutdownTimeout   = 5 * time.Second
	// IdleTimeout closes a connection that sends nothing for this long:
	// before its first request, between keep-alive requests, or while
	// sending one. Each connection holds a goroutine and a descriptor, and
	// the CLI sends one request per connection anyway. It also bounds how
	// long writing an answer to a client that does not read may take.
	IdleTimeout = 30 * time.Second
	// maxResponseBytes caps what a client reads back; status documents are
	// a few hundred KB at most (health.MaxStatusSessions per server).
	maxResponseBytes = 8 << 20
	// maxHeaderBytes and maxRequestBody cap a request: the control requests
	// are a line and a few headers, with no body.
	maxHeaderBytes = 16 << 10
	maxRequestBody = 4 << 10
)

// Serve serves h on a unix socket at socketPath until ctx is done, then
// shuts down gracefully and removes the socket file; it returns nil then.
//
// The socket's directory is created 0700 when missing and must not be
// writable by group or others; the socket itself is made 0600. A socket file
// left by a dead daemon is replaced; one a live daemon still answers on is
// not, and Serve fails with an error wrapping ErrSocketInUse. A nil logger
// discards.
//
// A connection idle for IdleTimeout is closed; a request larger than a few
// KB is refused.
func Serve(ctx context.Context, socketPath string, h Handler, logger *slog.Logger) error {
	return serve(ctx, socketPath, h, logger, IdleTimeout)
}

// serve is Serve with the idle timeout given (tests shorten it).
func serve(ctx context.Context, socketPath string, h Handler, logger *slog.Logger, idle time.Duration) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ln, err := listen(socketPath)
	if err != nil {
		return err
	}
	return serveOn(ctx, ln, h, logger, idle)
}

// ServeListener is Serve on a socket a supervisor passed (systemd,
// launchd: it made the file, 0600, and keeps it): ln is served until ctx
// is done and then closed, and the socket file is left in place for the
// supervisor. The peer's credentials are checked as Serve checks them.
func ServeListener(ctx context.Context, ln net.Listener, h Handler, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if ul, ok := ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
	return serveOn(ctx, ln, h, logger, IdleTimeout)
}

// serveOn serves h on ln until ctx is done, then shuts down gracefully.
func serveOn(ctx context.Context, ln net.Listener, h Handler, logger *slog.Logger, idle time.Duration) error {
	where := ln.Addr().String()
	// Without IdleTimeout and ReadTimeout, net/http waits for a keep-alive
	// connection's next request forever.
	srv := &http.Server{
		Handler:           limitRequest(newMux(h, logger)),
		ReadHeaderTimeout: min(readHeaderTimeout, idle),
		ReadTimeout:       idle,
		WriteTimeout:      idle,
		IdleTimeout:       idle,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	logger.Info("control socket listening", "path", where)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(peer.Own(ln, refusedFunc(h, logger))) }()
	select {
	case err := <-errc:
		return fmt.Errorf("control: serve %s: %w", where, err)
	case <-ctx.Done():
	}
	// ctx is already done: shut down on a fresh deadline so in-flight
	// requests can finish their answer.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("control: serve %s: %w", where, err)
	}
	logger.Info("control socket closed", "path", where)
	return nil
}

// refusedFunc: the socket file is 0600 in a private directory, and the
// peer's credentials check once more who connected (a root process, or
// a socket made reachable by hand).
func refusedFunc(h Handler, logger *slog.Logger) func(int) {
	if r, ok := h.(Refuser); ok {
		return r.Refused
	}
	return func(uid int) { logger.Warn("control socket: refused a connection of another user", "uid", uid) }
}

func newMux(h Handler, logger *slog.Logger) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		v, err := h.Status(r.Context())
		reply(w, logger, "status", v, err)
	})
	mux.HandleFunc("POST /heal", func(w http.ResponseWriter, r *http.Request) {
		server := r.URL.Query().Get("server")
		v, err := h.Heal(r.Context(), server)
		reply(w, logger, "heal", v, err)
	})
	return mux
}

// limitRequest refuses a request with a body over maxRequestBody (413) and
// caps what a handler could read of any body.
func limitRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > maxRequestBody {
			w.Header().Set("Connection", "close")
			writeJSON(w, http.StatusRequestEntityTooLarge,
				errorBody{Error: fmt.Sprintf("request body of %d bytes; control requests have none (at most %d)", r.ContentLength, maxRequestBody)})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxRequestBody)
		next.ServeHTTP(w, r)
	})
}

// errorBody is the JSON shape of every error answer.
type errorBody struct {
	Error string `json:"error"`
}

// reply writes v as JSON, or err as {"error": ...} with 404 for an unknown
// server and 500 otherwise.
func reply(w http.ResponseWriter, logger *slog.Logger, op string, v any, err error) {
	status := http.StatusOK
	if err != nil {
		status = http.StatusInternalServerError
		if errors.Is(err, ErrUnknownServer) {
			status = http.StatusNotFound
		}
		logger.Warn("control request failed", "op", op, "status", status, "err", err)
		v = errorBody{Error: err.Error()}
	}
	if merr := writeJSON(w, status, v); merr != nil {
		logger.Error("control reply not encodable", "op", op, "err", merr)
		_ = writeJSON(w, http.StatusInternalServerError, errorBody{Error: "encode reply: " + merr.Error()})
	}
}

// writeJSON writes v with its length, so a client can refuse an answer too
// large for it before reading it. Nothing is written when v does not encode.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	body = append(body, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
	return nil
}

// decodeError extracts the message of an error answer; it reports false
// when the body is not the JSON error shape.
func decodeError(r io.Reader) (string, bool) {
	var e errorBody
	if err := json.NewDecoder(r).Decode(&e); err != nil || e.Error == "" {
		return "", false
	}
	return e.Error, true
}
