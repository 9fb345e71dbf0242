//go:build linux

package e2e

import (
	"os"
	"strings"
	"testing"
)

// TestRacesJudgedByTheWholeStack: only a race whose two access stacks are
// a known entry's, frame for frame, passes as upstream; a race of ours
// called through a library (systray, godbus) does not, nor does a library
// race nobody has listed, nor a known one reached from our code.
func TestRacesJudgedByTheWholeStack(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile("testdata/race-systray-getlayout.txt") // from a -race run of the tray app
	if err != nil {
		t.Fatal(err)
	}
	known := string(real)
	icon, err := os.ReadFile("testdata/race-systray-seticon.txt")
	if err != nil {
		t.Fatal(err)
	}
	setIcon := string(icon)
	argb, err := os.ReadFile("testdata/race-systray-argb.txt")
	if err != nil {
		t.Fatal(err)
	}
	throughLibrary := `WARNING: DATA RACE
Write at 0x00c000076ae0 by goroutine 17:
  reflect.Value.Set()
      /usr/local/go/src/reflect/value.go:2163 +0x184
  github.com/godbus/dbus/v5.setDest()
      /x/dbus.go:98 +0x593
  github.com/mcpwatchdog/watchdog/tray.(*Tray).rebuild()
      /x/systray.go:1

Previous read at 0x00c000076ae0 by goroutine 18:
  fyne.io/systray.refresh()
      /x/menu.go:1
==================`
	tests := []struct {
		name       string
		log        string
		ours, upst int
	}{
		{"the known systray race", known, 0, 1},
		{"ours, through godbus and systray", throughLibrary, 1, 0},
		{"a library race nobody listed", strings.Replace(known, "fyne.io/systray.refresh()", "fyne.io/systray.other()", 1), 1, 0},
		{"the known race reached from our code", strings.Replace(known, "github.com/godbus/dbus/v5.(*Conn).inWorker.gowrap1()",
			"github.com/mcpwatchdog/watchdog/tray.(*Tray).run()", 1), 1, 0},
		{"both in one log", known + "\n" + throughLibrary, 1, 1},
		{"SetIcon against godbus's encoder, called from our rebuild", setIcon, 0, 1},
		{"our own write beside godbus's encoder", strings.Replace(setIcon, "fyne.io/systray.SetIcon()",
			"github.com/mcpwatchdog/watchdog/tray.setIcon()", 1), 1, 0},
		{"SetIcon's pixel buffer against godbus's encoder, the read first", string(argb), 0, 1},
		{"the encoder racing with something else", strings.Replace(setIcon, "reflect.Value.Int()", "reflect.Value.Float()", 1), 1, 0},
		{"a clean log", "clean log", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ours, upstream := races(tt.log)
			if len(ours) != tt.ours || len(upstream) != tt.upst {
				t.Fatalf("ours %d, upstream %d; want %d and %d", len(ours), len(upstream), tt.ours, tt.upst)
			}
		})
	}
}
