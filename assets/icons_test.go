package assets

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"testing"
)

func TestIconsDecodeAndDiffer(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, st := range states() {
		for kind, get := range map[string]func(string) ([]byte, error){"icon": Icon, "template": Template} {
			b, err := get(st)
			if err != nil {
				t.Fatalf("%s %s: %v", kind, st, err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%s %s: decode: %v", kind, st, err)
			}
			if img.Bounds().Dx() != img.Bounds().Dy() || img.Bounds().Dx() < 16 {
				t.Errorf("%s %s: bounds %v", kind, st, img.Bounds())
			}
			if prev, dup := seen[string(b)]; dup {
				t.Errorf("%s %s is the same picture as %s", kind, st, prev)
			}
			seen[string(b)] = kind + " " + st
			if kind == "template" {
				assertBlackAlpha(t, st, img)
			}
		}
	}
}

// assertBlackAlpha: macOS template images must carry shape in alpha only.
func assertBlackAlpha(t *testing.T, st string, img image.Image) {
	t.Helper()
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			if a != 0 && (r|g|bl) != 0 {
				t.Fatalf("template %s: pixel (%d,%d) is not black", st, x, y)
			}
		}
	}
}

func TestUnknownIcon(t *testing.T) {
	t.Parallel()
	if _, err := Icon("nope"); !errors.Is(err, ErrUnknownIcon) {
		t.Fatalf("err = %v, want ErrUnknownIcon", err)
	}
}

// states lists every icon state, worst last but one (paused is a mode,
// not a health).
func states() []string {
	return []string{"healthy", "at_risk", "healing", "lost", "down", "paused"}
}
