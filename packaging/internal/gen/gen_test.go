package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// The committed unit and icons are what gen makes from today's sources.
func TestCommittedFilesAreGenerated(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	icon, err := os.ReadFile("../../../assets/icons/healthy.png")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(tmp, "assets/icons/healthy.png"), icon)
	if err := run(tmp); err != nil {
		t.Fatal(err)
	}
	rels := []string{"packaging/linux/mcp-watchdog.service"}
	for _, n := range sizes {
		rels = append(rels, fmt.Sprintf("packaging/linux/icons/hicolor/%dx%d/apps/mcp-watchdog.png", n, n))
	}
	for _, rel := range rels {
		got, err := os.ReadFile(filepath.Join("../../..", rel))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(filepath.Join(tmp, rel))
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./packaging", rel)
		}
	}
}

// Scaling keeps an opaque square opaque and a transparent border
// transparent, at every size.
func TestScale(t *testing.T) {
	t.Parallel()
	src := image.NewNRGBA(image.Rect(0, 0, 44, 44))
	for y := 11; y < 33; y++ {
		for x := 11; x < 33; x++ {
			src.Set(x, y, color.NRGBA{R: 200, G: 40, B: 40, A: 255})
		}
	}
	for _, n := range sizes {
		img := scale(src, n)
		if c := img.NRGBAAt(n/2, n/2); c.A != 255 || c.R != 200 {
			t.Errorf("%d: centre %v", n, c)
		}
		if c := img.NRGBAAt(0, 0); c.A != 0 {
			t.Errorf("%d: corner %v", n, c)
		}
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
