package control

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

// ErrNoDaemon means no daemon serves the control socket: the socket file is
// absent or nothing accepts on it. The CLI maps it to exit code 3.
var ErrNoDaemon = errors.New("no watchdog daemon running")

// ErrAnswerTooLarge: the daemon's answer is larger than the client reads
// (maxResponseBytes); it was not used.
var ErrAnswerTooLarge = errors.New("answer too large")

// Client talks to a daemon's control socket. It holds no connection between
// calls, so it needs no Close.
type Client struct {
	path      string
	hc        *http.Client
	maxAnswer int64 // bytes read of an answer at most
}

// Dial returns a client for the socket at socketPath. It does not connect;
// each call does, and fails with ErrNoDaemon when no daemon answers.
func Dial(socketPath string) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socketPath)
		},
		// One request per CLI run: keeping idle connections would only
		// leave them open behind the caller.
		DisableKeepAlives: true,
	}
	return &Client{path: socketPath, hc: &http.Client{Transport: tr}, maxAnswer: maxResponseBytes}
}

// Status returns the daemon's status document as raw JSON.
func (c *Client) Status(ctx context.Context) (json.RawMessage, error) {
	return c.do(ctx, http.MethodGet, "/status")
}

// Heal asks the daemon to heal server now, or every server when server is
// "". An unknown name gives an error wrapping ErrUnknownServer.
func (c *Client) Heal(ctx context.Context, server string) (json.RawMessage, error) {
	path := "/heal"
	if server != "" {
		path += "?" + url.Values{"server": {server}}.Encode()
	}
	return c.do(ctx, http.MethodPost, path)
}

func (c *Client) do(ctx context.Context, method, path string) (json.RawMessage, error) {
	// The host part is ignored by the unix dialer; it only has to be valid.
	req, err := http.NewRequestWithContext(ctx, method, "http://watchdog"+path, nil)
	if err != nil {
		return nil, fmt.Errorf("control: %w", err)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if isNoListener(err) {
			return nil, fmt.Errorf("%w (socket %s)", ErrNoDaemon, c.path)
		}
		return nil, fmt.Errorf("control: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, responseError(resp.StatusCode, io.LimitReader(resp.Body, maxResponseBytes))
	}
	if resp.ContentLength > c.maxAnswer {
		return nil, c.tooLarge(path)
	}
	// One byte past the limit tells a cut answer from one that fits.
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("control: read answer: %w", err)
	}
	if int64(len(b)) > c.maxAnswer {
		return nil, c.tooLarge(path)
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("control: daemon answered %s with invalid JSON", path)
	}
	return json.RawMessage(bytes.TrimSpace(b)), nil
}

// tooLarge: the answer did not fit the read limit; what was read of it is
// cut, and saying "invalid JSON" would blame the daemon's encoding.
func (c *Client) tooLarge(path string) error {
	what, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "?")
	return &cutError{what: what, limit: c.maxAnswer}
}

// cutError is an answer over the read limit; it is ErrAnswerTooLarge.
type cutError struct {
	what  string
	limit int64
}

func (e *cutError) Error() string {
	return fmt.Sprintf("control: %s answer larger than %d bytes; cut", e.what, e.limit)
}

func (e *cutError) Is(target error) bool { return target == ErrAnswerTooLarge }

// responseError turns a non-200 answer into an error; a 404 carrying the
// JSON error shape is an unknown server (a plain 404 is a missing route).
func responseError(status int, body io.Reader) error {
	msg, ok := decodeError(body)
	if !ok {
		return fmt.Errorf("control: daemon answered %d %s", status, http.StatusText(status))
	}
	if status == http.StatusNotFound {
		return &remoteError{msg: msg, is: ErrUnknownServer}
	}
	return &remoteError{msg: fmt.Sprintf("daemon: %s", msg)}
}

// remoteError carries the daemon's own message, which already names the
// cause, and the sentinel a caller may branch on.
type remoteError struct {
	msg string
	is  error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.is }

// CheckStateDir says, wrapping ErrNoDaemon, why no daemon can run in
// stateDir when it is missing, unreadable or not a directory (no socket
// can be there: that is "no daemon running", said plainly, not a dial
// error); nil when it is a directory.
func CheckStateDir(stateDir string) error {
	fi, err := os.Stat(stateDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: the state directory %s does not exist, so no daemon runs there", ErrNoDaemon, textsafe.Escape(stateDir))
	case err != nil:
		return fmt.Errorf("%w: the state directory cannot be read: %s", ErrNoDaemon, textsafe.Escape(err.Error()))
	case !fi.IsDir():
		return fmt.Errorf("%w: the state directory %s is not a directory (it is a %s)", ErrNoDaemon, textsafe.Escape(stateDir), fsutil.TypeName(fi.Mode()))
	}
	return nil
}
