package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// testHandler is a small real Handler: two known servers, heals recorded.
type testHandler struct {
	mu     sync.Mutex
	healed []string
}

func (h *testHandler) Status(context.Context) (any, error) {
	return map[string]any{"servers": []map[string]any{{"name": "nowledge-mem", "state": "healthy"}}}, nil
}

func (h *testHandler) Heal(_ context.Context, server string) (any, error) {
	switch server {
	case "", "nowledge-mem", "other":
	case "broken":
		return nil, errors.New("heal exploded")
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownServer, server)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.healed = append(h.healed, server)
	return map[string]any{"healed": server}, nil
}

func (h *testHandler) calls() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.healed...)
}

// socketPath returns a path in a fresh, not yet existing directory.
func socketPath(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "run", "c.sock")
}

// startServe runs Serve until the test ends and waits until it answers.
func startServe(t *testing.T, path string, h Handler) {
	t.Helper()
	startServeIdle(t, path, h, IdleTimeout)
}

// startServeIdle is startServe with another idle timeout.
func startServeIdle(t *testing.T, path string, h Handler, idle time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, path, h, nil, idle) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve returned %v after cancel, want nil", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Serve did not return after cancel")
		}
	})
	waitServing(t, path, done)
}

func waitServing(t *testing.T, path string, done <-chan error) {
	t.Helper()
	c := Dial(path)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("Serve stopped early: %v", err)
		default:
		}
		if _, err := c.Status(context.Background()); err == nil || errors.Is(err, ErrAnswerTooLarge) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("control socket never answered")
}

// staleSocket leaves a socket file that nothing listens on, as a killed
// daemon does.
func staleSocket(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestRoundTrip(t *testing.T) {
	path := socketPath(t)
	h := &testHandler{}
	startServe(t, path, h)
	c := Dial(path)
	ctx := context.Background()

	raw, err := c.Status(ctx)
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	var st struct {
		Servers []struct{ Name, State string } `json:"servers"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatalf("status %s: %v", raw, err)
	}
	if len(st.Servers) != 1 || st.Servers[0].Name != "nowledge-mem" || st.Servers[0].State != "healthy" {
		t.Errorf("status = %s", raw)
	}

	for _, server := range []string{"nowledge-mem", "", "other"} {
		raw, err := c.Heal(ctx, server)
		if err != nil {
			t.Fatalf("Heal(%q): %v", server, err)
		}
		var got struct{ Healed string }
		if err := json.Unmarshal(raw, &got); err != nil || got.Healed != server {
			t.Errorf("Heal(%q) answer %s (%v)", server, raw, err)
		}
	}
	if got, want := h.calls(), []string{"nowledge-mem", "", "other"}; !reflect.DeepEqual(got, want) {
		t.Errorf("handler saw heals %q, want %q", got, want)
	}
}

func TestModes(t *testing.T) {
	path := socketPath(t)
	startServe(t, path, &testHandler{})
	for _, tc := range []struct {
		path string
		want fs.FileMode
	}{
		{path, 0o600},
		{filepath.Dir(path), 0o700},
	} {
		fi, err := os.Stat(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != tc.want {
			t.Errorf("mode of %s = %o, want %o", tc.path, got, tc.want)
		}
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		t.Errorf("%s is %v, want a socket", path, fi.Mode().Type())
	}
}

func TestStaleSocketReplaced(t *testing.T) {
	path := socketPath(t)
	staleSocket(t, path)
	if _, err := Dial(path).Status(context.Background()); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("stale socket: Status = %v, want ErrNoDaemon", err)
	}
	startServe(t, path, &testHandler{}) // fails the test if it does not come up
}

func TestLiveSocketNotStolen(t *testing.T) {
	path := socketPath(t)
	startServe(t, path, &testHandler{})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := Serve(ctx, path, &testHandler{}, nil)
	if !errors.Is(err, ErrSocketInUse) {
		t.Fatalf("second Serve = %v, want ErrSocketInUse", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the socket", err)
	}
	if _, err := Dial(path).Status(context.Background()); err != nil {
		t.Errorf("first daemon no longer answers: %v", err)
	}
}

func TestServeRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T) string
		want  string
	}{
		{"not a socket", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "c.sock")
			if err := os.WriteFile(p, []byte("keep me"), 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}, "not a socket"},
		{"dir writable by others", func(t *testing.T) string {
			d := t.TempDir()
			if err := os.Chmod(d, 0o777); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(d, "c.sock")
		}, "writable by group or others"},
		{"path too long", func(t *testing.T) string {
			return filepath.Join(t.TempDir(), strings.Repeat("x", 120))
		}, "longer than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.setup(t)
			before, _ := os.ReadFile(path)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err := Serve(ctx, path, &testHandler{}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Serve = %v, want an error containing %q", err, tc.want)
			}
			after, _ := os.ReadFile(path)
			if string(before) != string(after) {
				t.Errorf("Serve changed %s", path)
			}
		})
	}
}

func TestNoDaemon(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T) string
	}{
		{"socket file absent", func(t *testing.T) string { return socketPath(t) }},
		{"socket refuses", func(t *testing.T) string {
			p := socketPath(t)
			staleSocket(t, p)
			return p
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Dial(tc.setup(t))
			if _, err := c.Status(context.Background()); !errors.Is(err, ErrNoDaemon) {
				t.Errorf("Status = %v, want ErrNoDaemon", err)
			}
			if _, err := c.Heal(context.Background(), ""); !errors.Is(err, ErrNoDaemon) {
				t.Errorf("Heal = %v, want ErrNoDaemon", err)
			}
		})
	}
}

func TestHealErrors(t *testing.T) {
	path := socketPath(t)
	startServe(t, path, &testHandler{})
	c := Dial(path)
	tests := []struct {
		server      string
		unknown     bool
		wantMessage string
	}{
		{"nope", true, `unknown server "nope"`},
		{"broken", false, "heal exploded"},
	}
	for _, tc := range tests {
		_, err := c.Heal(context.Background(), tc.server)
		if err == nil {
			t.Fatalf("Heal(%q) succeeded", tc.server)
		}
		if errors.Is(err, ErrUnknownServer) != tc.unknown {
			t.Errorf("Heal(%q) = %v; wraps ErrUnknownServer: %v, want %v", tc.server, err, !tc.unknown, tc.unknown)
		}
		if errors.Is(err, ErrNoDaemon) {
			t.Errorf("Heal(%q) = %v, must not be ErrNoDaemon", tc.server, err)
		}
		if !strings.Contains(err.Error(), tc.wantMessage) {
			t.Errorf("Heal(%q) = %q, want it to contain %q", tc.server, err, tc.wantMessage)
		}
	}
}

// TestWireFormat checks the HTTP answers themselves, as another client
// (curl --unix-socket) would see them.
func TestWireFormat(t *testing.T) {
	path := socketPath(t)
	startServe(t, path, &testHandler{})
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
		DisableKeepAlives: true,
	}}
	tests := []struct {
		method, path string
		status       int
		jsonError    bool
	}{
		{"GET", "/status", 200, false},
		{"POST", "/heal?server=nope", 404, true},
		{"POST", "/heal?server=broken", 500, true},
		{"GET", "/heal", 405, false},
		{"GET", "/nothing", 404, false},
	}
	for _, tc := range tests {
		req, err := http.NewRequest(tc.method, "http://watchdog"+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s %s: status %d, want %d", tc.method, tc.path, resp.StatusCode, tc.status)
		}
		var e errorBody
		isJSONErr := json.Unmarshal(body, &e) == nil && e.Error != ""
		if isJSONErr != tc.jsonError {
			t.Errorf("%s %s: body %q; JSON error %v, want %v", tc.method, tc.path, body, isJSONErr, tc.jsonError)
		}
		if tc.jsonError && resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: Content-Type %q", tc.method, tc.path, resp.Header.Get("Content-Type"))
		}
	}
}

func TestResponseError(t *testing.T) {
	tests := []struct {
		status  int
		body    string
		unknown bool
		want    string
	}{
		{404, `{"error":"unknown server \"x\""}`, true, `unknown server "x"`},
		{404, "404 page not found\n", false, "404 Not Found"},
		{500, `{"error":"boom"}`, false, "boom"},
		{502, `<html>`, false, "502"},
	}
	for _, tc := range tests {
		err := responseError(tc.status, strings.NewReader(tc.body))
		if errors.Is(err, ErrUnknownServer) != tc.unknown || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("responseError(%d, %q) = %v; want unknown=%v containing %q", tc.status, tc.body, err, tc.unknown, tc.want)
		}
	}
}

func TestServeRemovesSocketOnShutdown(t *testing.T) {
	path := socketPath(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, path, &testHandler{}, nil) }()
	waitServing(t, path, done)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve = %v, want nil after cancel", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket after shutdown: %v, want removed", err)
	}
	if _, err := Dial(path).Status(context.Background()); !errors.Is(err, ErrNoDaemon) {
		t.Errorf("Status after shutdown = %v, want ErrNoDaemon", err)
	}
}
