package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
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
