//go:build linux

package e2e

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image/color"
	"strings"
	"testing"
)

// xwdDump makes a 2x1 little-endian 32-bit TrueColor dump: red, blue.
func xwdDump(t testing.TB) []byte {
	t.Helper()
	h := xwdHeader{HeaderSize: 104, FileVersion: 7, PixmapFormat: 2, PixmapDepth: 24, PixmapWidth: 2,
		PixmapHeight: 1, BitsPerPixel: 32, BytesPerLine: 8, VisualClass: 4,
		RedMask: 0xff0000, GreenMask: 0xff00, BlueMask: 0xff, NColors: 1}
	var b bytes.Buffer
	if err := binary.Write(&b, binary.BigEndian, h); err != nil {
		t.Fatal(err)
	}
	b.WriteString("win\x00")                      // window name up to HeaderSize
	b.Write(make([]byte, 12))                     // one colormap entry
	b.Write([]byte{0, 0, 0xff, 0, 0xff, 0, 0, 0}) // LSB first: 0x00ff0000, 0x000000ff
	return b.Bytes()
}

func TestDecodeXWD(t *testing.T) {
	t.Parallel()
	img, err := decodeXWD(bytes.NewReader(xwdDump(t)))
	if err != nil {
		t.Fatal(err)
	}
	if got := img.At(0, 0); got != (color.NRGBA{0xff, 0, 0, 0xff}) {
		t.Errorf("pixel 0 = %v, want red", got)
	}
	if got := img.At(1, 0); got != (color.NRGBA{0, 0, 0xff, 0xff}) {
		t.Errorf("pixel 1 = %v, want blue", got)
	}
	bad := xwdDump(t)
	bad[7] = 6 // file version
	if _, err := decodeXWD(bytes.NewReader(bad)); !errors.Is(err, ErrXWD) {
		t.Errorf("version 6: err %v, want ErrXWD", err)
	}
}

func FuzzDecodeXWD(f *testing.F) {
	f.Add(xwdDump(f))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = decodeXWD(bytes.NewReader(b)) // must not panic or allocate wildly
	})
}

func TestRacesSplitsOursFromUpstream(t *testing.T) {
	t.Parallel()
	log := `x
WARNING: DATA RACE
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

==================
WARNING: DATA RACE
Read at 0x00c000076ae8 by goroutine 19:
  sync/atomic.LoadInt32()
      /usr/local/go/src/x.go:1
  github.com/mcpwatchdog/watchdog/tray.(*Tray).loop()
      /x/systray.go:2

Goroutine 19 (running) created at:
  fyne.io/systray.Run()
`
	ours, upstream := races(log)
	if len(ours) != 1 || len(upstream) != 1 || !strings.Contains(ours[0], "loop") {
		t.Fatalf("ours %d upstream %d, want 1 and 1", len(ours), len(upstream))
	}
	if o, u := races("clean log"); len(o)+len(u) != 0 {
		t.Fatalf("races in a clean log: %v %v", o, u)
	}
}
