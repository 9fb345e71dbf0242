//go:build linux

package e2e

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image/color"
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
