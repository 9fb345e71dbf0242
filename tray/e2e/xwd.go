package e2e

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"math/bits"
)

// ErrXWD is returned for an xwd dump this decoder does not read.
var ErrXWD = errors.New("xwd: unsupported dump")

// xwdHeader is the X11 XWDFileHeader: 25 big-endian uint32s.
type xwdHeader struct {
	HeaderSize, FileVersion, PixmapFormat, PixmapDepth, PixmapWidth, PixmapHeight, XOffset,
	ByteOrder, BitmapUnit, BitmapBitOrder, BitmapPad, BitsPerPixel, BytesPerLine, VisualClass,
	RedMask, GreenMask, BlueMask, BitsPerRGB, ColormapEntries, NColors,
	WindowWidth, WindowHeight, WindowX, WindowY, WindowBdrWidth uint32
}

// decodeXWD reads a TrueColor ZPixmap dump at 24 or 32 bits per pixel,
// which is what `xwd -root` gives on Xvfb; no need for ImageMagick.
func decodeXWD(r io.Reader) (image.Image, error) {
	var h xwdHeader
	if err := binary.Read(r, binary.BigEndian, &h); err != nil {
		return nil, fmt.Errorf("xwd header: %w", err)
	}
	if h.FileVersion != 7 || h.PixmapFormat != 2 || (h.BitsPerPixel != 32 && h.BitsPerPixel != 24) ||
		h.HeaderSize < 100 || h.HeaderSize > 1<<16 || h.NColors > 1<<16 ||
		h.PixmapWidth > 1<<12 || h.PixmapHeight > 1<<12 ||
		uint64(h.BytesPerLine) < uint64(h.PixmapWidth)*uint64(h.BitsPerPixel/8) || h.BytesPerLine > 1<<16 {
		return nil, fmt.Errorf("%w: %+v", ErrXWD, h)
	}
	skip := int64(h.HeaderSize-100) + int64(h.NColors)*12 // window name, colormap
	if _, err := io.CopyN(io.Discard, r, skip); err != nil {
		return nil, fmt.Errorf("xwd: %w", err)
	}
	w, ht := int(h.PixmapWidth), int(h.PixmapHeight)
	img := image.NewNRGBA(image.Rect(0, 0, w, ht))
	line := make([]byte, h.BytesPerLine)
	bpp := int(h.BitsPerPixel / 8)
	for y := range ht {
		if _, err := io.ReadFull(r, line); err != nil {
			return nil, fmt.Errorf("xwd row %d: %w", y, err)
		}
		for x := range w {
			p := pixel(line[x*bpp:x*bpp+bpp], h.ByteOrder == 0)
			img.SetNRGBA(x, y, color.NRGBA{channel(p, h.RedMask), channel(p, h.GreenMask), channel(p, h.BlueMask), 0xff})
		}
	}
	return img, nil
}

func pixel(b []byte, lsbFirst bool) uint32 {
	var p uint32
	for i := range b {
		j := i
		if lsbFirst {
			j = len(b) - 1 - i
		}
		p = p<<8 | uint32(b[j])
	}
	return p
}

func channel(p, mask uint32) uint8 {
	if mask == 0 {
		return 0
	}
	v := (p & mask) >> bits.TrailingZeros32(mask)
	width := bits.OnesCount32(mask)
	if width >= 8 {
		return uint8(v >> (width - 8))
	}
	return uint8(v << (8 - width))
}
