package soak

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// readBeaconFile reads the beacon at path, and its mode and its folder's.
func readBeaconFile(t *testing.T, path string) (beaconDoc, os.FileMode, os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc beaconDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("beacon does not parse: %v\n%s", err, b)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	return doc, fi.Mode().Perm(), di.Mode().Perm()
}

func TestBeaconLikeThePatchedClient(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "clients")
	servers := []ClientServer{{Name: "a", URL: "http://127.0.0.1:1/mcp"}, {Name: "b", URL: "http://127.0.0.1:2/mcp"}}
	b, err := newBeacon(dir, servers)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, strconv.Itoa(os.Getpid())+".json")
	doc, mode, dmode := readBeaconFile(t, path)
	if doc.Version != 1 || doc.PID != os.Getpid() || len(doc.Servers) != 2 || doc.Servers[0].State != beaconDown || doc.Servers[0].SessionID != nil {
		t.Fatalf("first beacon: %+v", doc)
	}
	if mode != 0o600 || dmode != 0o700 {
		t.Fatalf("beacon mode %v, folder %v; want 0600 in 0700", mode, dmode)
	}
	b.connected("b", "sess-1")
	b.requested("b")
	doc, _, _ = readBeaconFile(t, path)
	got := doc.Servers[1]
	if got.Name != "b" || got.SessionID == nil || *got.SessionID != "sess-1" || got.State != beaconConnected ||
		got.ConnectedSince == nil || got.LastRequest == nil || doc.Servers[0].State != beaconDown {
		t.Fatalf("after connect: %+v", doc)
	}
	if _, err := time.Parse(time.RFC3339Nano, *got.ConnectedSince); err != nil {
		t.Fatalf("connected_since %q is not ISO 8601: %v", *got.ConnectedSince, err)
	}
	b.dropped("b")
	doc, _, _ = readBeaconFile(t, path)
	if got := doc.Servers[1]; got.SessionID != nil || got.State != beaconReconnecting {
		t.Fatalf("after drop: %+v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "."+strconv.Itoa(os.Getpid())+".json.tmp")); !os.IsNotExist(err) {
		t.Fatalf("temp file left behind: %v", err)
	}
	if err := b.remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("beacon still there after a clean exit: %v", err)
	}
}

func TestNoBeaconWithoutAFolder(t *testing.T) {
	b, err := newBeacon("", []ClientServer{{Name: "a"}})
	if err != nil || b != nil {
		t.Fatalf("newBeacon(\"\") = %v, %v", b, err)
	}
	b.connected("a", "x") // a client with no beacon: nothing happens
	if err := b.remove(); err != nil {
		t.Fatal(err)
	}
}
