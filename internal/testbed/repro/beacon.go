package repro

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Beacon is the patched client's beacon file, as the payload writes it.
type Beacon struct {
	Version int            `json:"version"`
	PID     int            `json:"pid"`
	Updated string         `json:"updated"`
	Servers []BeaconServer `json:"servers"`

	// Path and Mode are where the file was read and its permissions.
	Path string      `json:"-"`
	Mode fs.FileMode `json:"-"`
}

// BeaconServer is one server of the client process. SessionID is a full
// session id: a credential, mask it before it leaves the process.
type BeaconServer struct {
	Name           string `json:"name"`
	URL            string `json:"url"`
	SessionID      string `json:"session_id"`
	State          string `json:"state"` // connected, reconnecting or down
	ConnectedSince string `json:"connected_since"`
	LastRequest    string `json:"last_request"`
	Updated        string `json:"updated"`
}

// BeaconPath is the beacon of client process pid under home: the patched
// client writes one <pid>.json per process in its profile's BeaconDir.
func BeaconPath(home string, pid int) string {
	return filepath.Join(home, dsh().Client.BeaconDir, strconv.Itoa(pid)+".json")
}

// ReadBeacon reads and parses the beacon of client process pid.
func ReadBeacon(home string, pid int) (Beacon, error) {
	path := BeaconPath(home, pid)
	fi, err := os.Stat(path)
	if err != nil {
		return Beacon{}, fmt.Errorf("repro: beacon: %w", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Beacon{}, fmt.Errorf("repro: beacon: %w", err)
	}
	bc, err := parseBeacon(b)
	if err != nil {
		return Beacon{}, fmt.Errorf("repro: beacon %s: %w", path, err)
	}
	bc.Path, bc.Mode = path, fi.Mode().Perm()
	return bc, nil
}

func parseBeacon(b []byte) (Beacon, error) {
	var bc Beacon
	if err := json.Unmarshal(b, &bc); err != nil {
		return Beacon{}, err
	}
	if bc.Version != 1 {
		return Beacon{}, fmt.Errorf("version %d, want 1", bc.Version)
	}
	return bc, nil
}

// Server returns the entry for the named server.
func (b Beacon) Server(name string) (BeaconServer, bool) {
	for _, s := range b.Servers {
		if s.Name == name {
			return s, true
		}
	}
	return BeaconServer{}, false
}
