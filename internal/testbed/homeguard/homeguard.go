// Package homeguard keeps tests from touching the user's HOME: a test
// package's TestMain takes a snapshot of the folders hosts and the
// watchdog keep in the real HOME, runs its tests, and fails the run when
// any of them changed. Every test that runs a host CLI or the watchdog
// must give it a temp HOME (and XDG dirs); this is what catches one that
// does not (a host's `--version` that writes its project registry, a
// daemon that writes its state).
package homeguard

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// Watched are the places, under HOME, that hosts and the watchdog write:
// every host's folders as its profile names them (both systems'), the
// watchdog's own, and where autostart writes.
func Watched() []string {
	out := []string{".claude", ".config/mcp-watchdog", ".local/state/mcp-watchdog", ".config/autostart", ".config/systemd/user"}
	for _, p := range host.Profiles() {
		for _, c := range p.Config {
			for _, dir := range []string{c.Linux, c.Darwin} {
				switch {
				case dir != "":
					out = append(out, dir)
				case len(c.Names) > 0:
					out = append(out, c.Names...) // files in HOME itself (.claude.json)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// State is what the watched places held: each file's size and time.
type State struct {
	home  string
	files map[string]string
}

// Take records the watched places under home.
func Take(home string) State {
	s := State{home: home, files: map[string]string{}}
	for _, w := range Watched() {
		root := filepath.Join(home, w)
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil //nolint:nilerr // a place that is not there is recorded as absent
			}
			if d.IsDir() && strings.Count(strings.TrimPrefix(path, root), string(filepath.Separator)) > 4 {
				return filepath.SkipDir
			}
			fi, err := d.Info()
			if err == nil {
				s.files[path] = fmt.Sprintf("%v %d %s", fi.Mode().Type(), fi.Size(), fi.ModTime().Format(time.RFC3339Nano))
			}
			return nil
		})
	}
	return s
}

// Changed lists what differs in now from s: paths added, removed or
// changed, sorted.
func (s State) Changed(now State) []string {
	var out []string
	for p, v := range now.files {
		if old, ok := s.files[p]; !ok {
			out = append(out, "added "+p)
		} else if old != v && !isDirOnly(old, v) {
			out = append(out, "changed "+p)
		}
	}
	for p := range s.files {
		if _, ok := now.files[p]; !ok {
			out = append(out, "removed "+p)
		}
	}
	slices.Sort(out)
	return out
}

// keepCaches pins the Go and npm caches to where they are with the real
// HOME, unless the environment names them already.
func keepCaches(home string) {
	cache, _ := os.UserCacheDir()
	gopath := filepath.Join(home, "go")
	for k, v := range map[string]string{"GOPATH": gopath, "GOMODCACHE": filepath.Join(gopath, "pkg", "mod"),
		"GOCACHE": filepath.Join(cache, "go-build"), "npm_config_cache": filepath.Join(home, ".npm")} {
		if os.Getenv(k) == "" {
			_ = os.Setenv(k, v)
		}
	}
}

// isDirOnly: a folder's time moves when an entry is added; the entry
// itself is what is reported.
func isDirOnly(a, b string) bool { return strings.HasPrefix(a, "d") && strings.HasPrefix(b, "d") }

// Main runs a package's tests (m.Run) with HOME and the XDG folders
// pointed at a temp folder, so that whatever they start (the watchdog, a
// host) inherits those, between two snapshots of the real HOME; it returns
// the exit code: 1 when the tests passed but touched the real HOME. The Go
// and npm caches stay where they were: a cold cache would rebuild and
// download everything.
func Main(m *testing.M) int {
	home, err := os.UserHomeDir()
	if err != nil {
		return m.Run()
	}
	temp, err := os.MkdirTemp("", "homeguard-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, "homeguard:", err)
		return 1
	}
	defer os.RemoveAll(temp)
	keepCaches(home)
	for k, v := range map[string]string{"HOME": temp, "XDG_CONFIG_HOME": filepath.Join(temp, ".config"),
		"XDG_STATE_HOME": filepath.Join(temp, ".local/state"), "XDG_DATA_HOME": filepath.Join(temp, ".local/share"),
		"XDG_CACHE_HOME": filepath.Join(temp, ".cache")} {
		_ = os.Setenv(k, v)
	}
	before := Take(home)
	code := m.Run()
	if changed := before.Changed(Take(home)); len(changed) > 0 {
		fmt.Fprintf(os.Stderr, "homeguard: the tests changed the user's HOME (%s): every host CLI and watchdog a test runs must get a temp HOME:\n  %s\n",
			home, strings.Join(changed, "\n  "))
		if code == 0 {
			code = 1
		}
	}
	return code
}
