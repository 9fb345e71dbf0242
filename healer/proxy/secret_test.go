package proxy_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
)

// The secret is made once, kept 0600, and the same for every later reader
// (a daemon restart, doctor), also when several make it at once.
func TestSecretKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() {
			s, err := proxy.LoadSecret(dir)
			if err != nil {
				t.Error(err)
			}
			got[i] = s
		})
	}
	wg.Wait()
	for _, s := range got {
		if s != got[0] || proxy.CheckSecret(s) != nil {
			t.Fatalf("secrets %q; want one valid secret for all", got)
		}
	}
	again, err := proxy.LoadSecret(dir)
	if err != nil || again != got[0] {
		t.Errorf("read again: %q, %v; want %q", again, err, got[0])
	}
	fi, err := os.Stat(filepath.Join(dir, proxy.SecretFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("secret file: %v, %v; want mode 0600", fi.Mode(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
}

// A secret file that holds no secret is an error naming the file and the
// way out, never silently replaced (hosts hold the old URL).
func TestSecretFileDamaged(t *testing.T) {
	for _, tc := range []struct{ name, content string }{
		{"empty", ""},
		{"short", "ABC"},
		{"not base32", "abcdefghijklmnopqrstuvwxyz\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, proxy.SecretFile)
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := proxy.LoadSecret(dir)
			if !errors.Is(err, proxy.ErrBadSecret) || !contains(err.Error(), path, "remove the file") {
				t.Errorf("LoadSecret = %v; want ErrBadSecret naming %s and the fix", err, path)
			}
		})
	}
}

// New refuses options without a valid secret.
func TestNewNeedsSecret(t *testing.T) {
	for _, s := range []string{"", "short", proxy.NewSecret() + "A"} {
		if _, err := proxy.New(proxy.Options{Upstream: "http://127.0.0.1:1/mcp", Secret: s}); !errors.Is(err, proxy.ErrBadSecret) {
			t.Errorf("New with secret %q: %v, want ErrBadSecret", s, err)
		}
	}
}

func contains(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
