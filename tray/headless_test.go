package tray

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// Without a session bus Run must not touch systray (v1.12.2 panics on
// quit without one): it runs headless until ctx ends.
func TestRunHeadlessWithoutSessionBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(t.TempDir(), "no-bus"))
	if SessionBusAvailable() {
		t.Fatal("SessionBusAvailable with no bus at the address")
	}
	tr := New(Options{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- tr.Run(ctx) }()
	tr.Update(View{}) // must not block while headless
	select {
	case err := <-done:
		t.Fatalf("Run returned before ctx ended: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after ctx ended")
	}
}
