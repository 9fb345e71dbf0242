package proxy

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// The proxy's secret is the first segment of its URL's path
// (http://<listen>/<secret>/mcp): on a system that does not name a TCP
// peer's owner (macOS) it is what keeps other local users out, and
// everywhere it keeps out whoever guesses ports. The URL's shape is
// internal/proxyurl's.

// SecretFile holds the secret in the state directory (0600).
const SecretFile = "proxy-secret"

// ErrBadSecret: a secret that is not 26 base32 characters (A-Z, 2-7).
var ErrBadSecret = proxyurl.ErrBadSecret

// URLFor is the proxy's URL for a host: http://<listen>/<secret>/mcp. It is a
// credential: print it only where the user asks for the URL to give a host.
func URLFor(listen, secret string) string { return proxyurl.For(listen, secret) }

// NewSecret makes a fresh random secret; its alphabet is URL-safe.
func NewSecret() string { return rand.Text() }

// CheckSecret reports whether s has the shape of a secret.
func CheckSecret(s string) error { return proxyurl.CheckSecret(s) }

// LoadSecret reads the secret kept in stateDir, making it on first need:
// it is the same across daemon restarts, and `doctor`, which runs without
// a daemon, reads the one the daemon uses. A new secret is written to a
// temp file and linked into place, so two processes making it at once
// agree on one and neither reads half a file.
func LoadSecret(stateDir string) (string, error) {
	if err := fsutil.PrivateDir(stateDir); err != nil {
		return "", err
	}
	path := filepath.Join(stateDir, SecretFile)
	s, err := readSecret(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return s, err
	}
	if err := createSecret(path); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("proxy secret: %w", err)
	}
	return readSecret(path)
}

func readSecret(path string) (string, error) {
	b, err := fsutil.ReadPrivate(path, 256)
	if err != nil {
		return "", fmt.Errorf("proxy secret: %w", err)
	}
	s := string(bytes.TrimSpace(b))
	if err := CheckSecret(s); err != nil {
		return "", fmt.Errorf("proxy secret %s: %w; remove the file and restart the daemon, then give hosts the new URL from `watchdog status`", path, err)
	}
	return s, nil
}

// createSecret puts a new secret at path unless one is there (fs.ErrExist).
func createSecret(path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+SecretFile+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	err = tmp.Chmod(0o600)
	if err == nil {
		_, err = tmp.WriteString(NewSecret() + "\n")
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Link(tmp.Name(), path)
}

// secretPath reports whether path is /<secret>/mcp, comparing the secret
// in constant time.
func (p *Proxy) secretPath(path string) bool {
	want := p.endpoint
	if len(path) != len(want) {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(path), []byte(want)) == 1
}
