// Command gen draws the tray icons into assets/icons. Run once from the
// assets directory with `go run ./internal/gen`; the PNGs are committed so
// builds need no generator.
package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
)

const size = 44 // 22 pt @2x on macOS; Linux hosts scale it down

// glyph is the mark drawn inside the disc, so states differ in shape as
// well as colour (template icons on macOS have no colour at all).
type glyph int

const (
	glyphNone glyph = iota
	glyphDot
	glyphRing
	glyphCross
	glyphBar
	glyphPause
)

type state struct {
	name  string
	fill  color.NRGBA
	glyph glyph
}

var states = []state{
	{"healthy", color.NRGBA{0x2e, 0xa0, 0x43, 0xff}, glyphNone},
	{"at_risk", color.NRGBA{0xe3, 0xa0, 0x08, 0xff}, glyphDot},
	{"healing", color.NRGBA{0x1f, 0x6f, 0xeb, 0xff}, glyphRing},
	{"lost", color.NRGBA{0xd1, 0x24, 0x2f, 0xff}, glyphCross},
	{"down", color.NRGBA{0x6e, 0x40, 0xc9, 0xff}, glyphBar},
	{"paused", color.NRGBA{0x8c, 0x95, 0x9f, 0xff}, glyphPause},
}

func main() {
	out := "icons"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		fail(err)
	}
	for _, s := range states {
		if err := write(filepath.Join(out, s.name+".png"), draw(s, false)); err != nil {
			fail(err)
		}
		if err := write(filepath.Join(out, s.name+"_template.png"), draw(s, true)); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}

func write(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return f.Close()
}

// draw paints a disc with a glyph cut out of it. Template icons are black
// with alpha only: macOS tints them for light and dark menu bars.
func draw(s state, template bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	fill := s.fill
	if template {
		fill = color.NRGBA{0, 0, 0, 0xff}
	}
	c := float64(size) / 2
	r := c - 2
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			dx, dy := float64(x)+0.5-c, float64(y)+0.5-c
			a := coverage(math.Hypot(dx, dy), r)
			if a == 0 {
				continue
			}
			if inGlyph(s.glyph, dx, dy, r) {
				if template {
					continue // cut out: transparent
				}
				img.SetNRGBA(x, y, color.NRGBA{0xff, 0xff, 0xff, uint8(a * 255)})
				continue
			}
			px := fill
			px.A = uint8(a * float64(fill.A))
			img.SetNRGBA(x, y, px)
		}
	}
	return img
}

// coverage antialiases the disc edge over one pixel.
func coverage(d, r float64) float64 {
	return math.Max(0, math.Min(1, r-d+0.5))
}

func inGlyph(g glyph, dx, dy, r float64) bool {
	d := math.Hypot(dx, dy)
	switch g {
	case glyphDot:
		return d < r*0.3
	case glyphRing:
		return d > r*0.35 && d < r*0.6
	case glyphCross:
		w := r * 0.14
		in := math.Abs(dx) < r*0.55 && math.Abs(dy) < r*0.55
		return in && (math.Abs(dx-dy) < w*1.41 || math.Abs(dx+dy) < w*1.41)
	case glyphBar:
		return math.Abs(dx) < r*0.55 && math.Abs(dy) < r*0.14
	case glyphPause:
		return math.Abs(dy) < r*0.45 && math.Abs(math.Abs(dx)-r*0.25) < r*0.12
	}
	return false
}
