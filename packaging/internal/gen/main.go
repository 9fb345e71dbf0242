// Command gen writes the packaging files that are derived from other
// sources, so each has a single source: the systemd user unit (from
// internal/autostart's embedded template, for /usr/bin/watchdog) and the
// hicolor app icons (scaled from the tray's healthy icon in assets/icons).
// Run from the repo root: go generate ./packaging
package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// Sizes are the hicolor sizes shipped (px).
var sizes = []int{16, 24, 32, 48, 64, 128, 256}

func main() {
	root := flag.String("root", ".", "repo root")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	unit, err := autostart.Render(autostart.Systemd, "/usr/bin/watchdog")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(root, "packaging/linux"), 0o755); err != nil {
		return err
	}
	if err := fsutil.WriteAtomic(filepath.Join(root, "packaging/linux/mcp-watchdog.service"), unit, 0o644); err != nil {
		return err
	}
	src, err := os.ReadFile(filepath.Join(root, "assets/icons/healthy.png"))
	if err != nil {
		return err
	}
	img, err := png.Decode(bytes.NewReader(src))
	if err != nil {
		return fmt.Errorf("assets/icons/healthy.png: %w", err)
	}
	for _, n := range sizes {
		dir := filepath.Join(root, "packaging/linux/icons/hicolor", fmt.Sprintf("%dx%d", n, n), "apps")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		var b bytes.Buffer
		enc := png.Encoder{CompressionLevel: png.BestCompression}
		if err := enc.Encode(&b, scale(img, n)); err != nil {
			return err
		}
		if err := fsutil.WriteAtomic(filepath.Join(dir, "mcp-watchdog.png"), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// scale resamples src to n×n: an area average when shrinking, bilinear when
// growing; enough for a flat icon without another module.
func scale(src image.Image, n int) *image.NRGBA {
	dst := image.NewNRGBA(image.Rect(0, 0, n, n))
	b := src.Bounds()
	sw, sh := float64(b.Dx()), float64(b.Dy())
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			x0, x1 := float64(x)*sw/float64(n), float64(x+1)*sw/float64(n)
			y0, y1 := float64(y)*sh/float64(n), float64(y+1)*sh/float64(n)
			dst.Set(x, y, sample(src, b, x0, x1, y0, y1))
		}
	}
	return dst
}
