package soak

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Beacon states, as the patched client names them.
const (
	beaconConnected    = "connected"
	beaconReconnecting = "reconnecting"
	beaconDown         = "down"
)

// beaconDoc is the patched client's beacon file (healer/clientpatch
// payload, __mcpWatchdogWriteBeacon): one per process, named <pid>.json.
type beaconDoc struct {
	Version int            `json:"version"`
	PID     int            `json:"pid"`
	Updated string         `json:"updated"`
	Servers []beaconServer `json:"servers"`
}

// beaconServer is one server's entry. SessionID is the full id: the
// beacon is a 0600 file in a 0700 folder, read only by the watchdog.
type beaconServer struct {
	Name           string  `json:"name"`
	URL            string  `json:"url"`
	SessionID      *string `json:"session_id"`
	State          string  `json:"state"`
	ConnectedSince *string `json:"connected_since"`
	LastRequest    *string `json:"last_request"`
	Updated        string  `json:"updated"`
}

// beacon writes a soak client's beacon the way the patched client does:
// rewritten through a temp file and a rename whenever an entry changes,
// removed at a clean exit (a kill -9 leaves it for the watchdog to remove).
type beacon struct {
	dir, path, temp string
	pid             int

	mu      sync.Mutex
	entries []beaconServer // in the order of the client's servers
}

// newBeacon starts the beacon of this process with every server down (no
// session yet), and writes it. A nil beacon (no dir) does nothing.
func newBeacon(dir string, servers []ClientServer) (*beacon, error) {
	if dir == "" {
		return nil, nil
	}
	pid := os.Getpid()
	b := &beacon{dir: dir, pid: pid, path: filepath.Join(dir, strconv.Itoa(pid)+".json"),
		temp: filepath.Join(dir, "."+strconv.Itoa(pid)+".json.tmp")}
	now := time.Now()
	for _, s := range servers {
		b.entries = append(b.entries, beaconServer{Name: s.Name, URL: s.URL, State: beaconDown, Updated: isoTime(now)})
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b, b.write(now)
}

// connected: the client holds session id on server, opened now.
func (b *beacon) connected(server, id string) {
	b.update(server, func(e *beaconServer, now string) {
		e.SessionID, e.State, e.ConnectedSince = &id, beaconConnected, &now
	})
}

// dropped: the client gave its session on server up and is opening a new
// one.
func (b *beacon) dropped(server string) {
	b.update(server, func(e *beaconServer, _ string) {
		e.SessionID, e.State, e.ConnectedSince = nil, beaconReconnecting, nil
	})
}

// requested: a request went out on server's session.
func (b *beacon) requested(server string) {
	b.update(server, func(e *beaconServer, now string) { e.LastRequest = &now })
}

func (b *beacon) update(server string, change func(e *beaconServer, now string)) {
	if b == nil {
		return
	}
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range b.entries {
		if b.entries[i].Name == server {
			change(&b.entries[i], isoTime(now))
			b.entries[i].Updated = isoTime(now)
		}
	}
	// A failed write is tried again at the next change, as the patched
	// client does; the watchdog then sees a stale beacon, which it must
	// survive.
	_ = b.write(now)
}

// write replaces the file: temp file (0600, made anew so its mode holds),
// then a rename, in a folder made 0700. Called with mu held.
func (b *beacon) write(now time.Time) error {
	doc, err := json.MarshalIndent(beaconDoc{Version: 1, PID: b.pid, Updated: isoTime(now), Servers: b.entries}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(b.dir, 0o700); err != nil {
		return err
	}
	if err := os.Remove(b.temp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.WriteFile(b.temp, append(doc, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(b.temp, b.path)
}

// remove deletes the beacon at a clean exit.
func (b *beacon) remove() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := os.Remove(b.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// isoTime is JavaScript's Date.toISOString: UTC, milliseconds, "Z".
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
