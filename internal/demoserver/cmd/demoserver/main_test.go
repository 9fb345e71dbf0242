package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

func TestRunServesUntilCancelled(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "mcp-sessions.json")
	logPath := filepath.Join(dir, "server.log")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"-idle", "90s", "-store", store, "-log", logPath}, pw, &stderr)
		_ = pw.Close()
		done <- code
	}()

	url, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("read URL: %v (stderr: %s)", err, stderr.String())
	}
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("first line %q is not the loopback MCP URL", url)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()

	cctx, ccancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer ccancel()
	cs, err := demoserver.Connect(cctx, url, "runner-test")
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer cs.Close()

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit code %d, want 0 (stderr: %s)", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not return after cancel")
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"seconds=90 store_path=" + store, "client=runner-test", "reason=shutdown"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if b, err := os.ReadFile(store); err != nil || !strings.Contains(string(b), `"sessions": []`) {
		t.Errorf("store after stop = %q, %v; want an empty sessions list", b, err)
	}
}

// TestRunEvents: with -events, a session that idles out shows as SESSION_START
// with its client, TOOL_CALL for its echo call and SESSION_END idle_timeout
// after the URL line; a stale
// store left by a killed server is rewritten empty before the URL is out.
func TestRunEvents(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "mcp-sessions.json")
	stale := `{"sessions":[{"id":"stale-session","client_name":"old","created_at":"2026-01-01T00:00:00Z",` +
		`"last_activity":"2026-01-01T00:00:00Z"}]}`
	if err := os.WriteFile(store, []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	next, lines, done, stderr := startRun(t, ctx, []string{"-events", "-idle", "1s", "-store", store, "-log", filepath.Join(dir, "server.log")})

	url := next("URL")
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q is not the URL", url)
	}
	if b, err := os.ReadFile(store); err != nil || strings.Contains(string(b), "stale") ||
		!strings.Contains(string(b), `"sessions": []`) {
		t.Fatalf("store once the URL is out = %q, %v; want an empty sessions list", b, err)
	}
	cctx, ccancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer ccancel()
	cs, err := demoserver.Connect(cctx, url, "runner events")
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer cs.Close()
	id := cs.ID()
	if got, want := next("SESSION_START"), "SESSION_START "+id+" runner events"; got != want {
		t.Fatalf("got %q, want %q", maskIn(got, id), maskIn(want, id))
	}
	if _, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "call\r\none"}}); err != nil {
		t.Fatalf("echo: %v", err)
	}
	if got, want := next("TOOL_CALL"), "TOOL_CALL "+id+" call  one"; got != want {
		t.Fatalf("got %q, want %q", maskIn(got, id), maskIn(want, id))
	}
	if got, want := next("SESSION_END"), "SESSION_END "+id+" idle_timeout"; got != want {
		t.Fatalf("got %q, want %q", maskIn(got, id), maskIn(want, id))
	}
	cancel()
	for l := range lines {
		t.Errorf("unexpected line after the idle end: %q", l)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit code %d, want 0 (stderr: %s)", code, stderr.String())
	}
}

// startRun runs the program with args until ctx ends. next waits for its
// next stdout line (failing the test after 20 s or at the end of the
// output), lines yields the rest, done its exit code, stderr what it said.
func startRun(t *testing.T, ctx context.Context, args []string) (next func(what string) string, lines <-chan string, done <-chan int, stderr *syncBuffer) {
	pr, pw := io.Pipe()
	stderr = &syncBuffer{}
	exit := make(chan int, 1)
	go func() {
		code := run(ctx, args, pw, stderr)
		_ = pw.Close()
		exit <- code
	}()
	out := make(chan string, 16)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			out <- sc.Text()
		}
	}()
	next = func(what string) string {
		t.Helper()
		select {
		case l, ok := <-out:
			if !ok {
				t.Fatalf("stdout ended before %s (stderr: %s)", what, stderr.String())
			}
			return l
		case <-time.After(20 * time.Second):
			t.Fatalf("no %s line within 20s (stderr: %s)", what, stderr.String())
			return ""
		}
	}
	return next, out, exit, stderr
}

func TestEventLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		e    demoserver.Event
		want string
	}{
		{demoserver.Event{Kind: demoserver.EventStart, ID: "abc", Client: "dsh-mcp-client"}, "SESSION_START abc dsh-mcp-client"},
		{demoserver.Event{Kind: demoserver.EventStart, ID: "abc"}, "SESSION_START abc -"},
		{demoserver.Event{Kind: demoserver.EventStart, ID: "abc", Client: "two\r\nlines"}, "SESSION_START abc two  lines"},
		{demoserver.Event{Kind: demoserver.EventEnd, ID: "abc", Client: "c", Reason: demoserver.ReasonDeleted}, "SESSION_END abc deleted"},
	}
	for _, tt := range tests {
		if got := eventLine(tt.e); got != tt.want {
			t.Errorf("eventLine(%+v) = %q, want %q", tt.e, got, tt.want)
		}
	}
}

// maskIn masks the session id inside a stdout line: ids are credentials.
func maskIn(line, id string) string { return strings.ReplaceAll(line, id, mask.ID(id)) }

// syncBuffer is a bytes.Buffer safe for the server's goroutines and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRunBadUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"unknown flag", []string{"-nope"}, 2},
		{"bad duration", []string{"-idle", "soon"}, 2},
		{"negative idle", []string{"-idle", "-1s"}, 2},
		{"extra argument", []string{"extra"}, 2},
		{"help", []string{"-h"}, 0},
		{"unlistenable address", []string{"-addr", "127.0.0.1:-1"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if got := run(t.Context(), tt.args, &out, &errb); got != tt.want {
				t.Errorf("exit %d, want %d (stderr: %s)", got, tt.want, errb.String())
			}
			if out.Len() != 0 {
				t.Errorf("stdout = %q, want nothing", out.String())
			}
		})
	}
}
