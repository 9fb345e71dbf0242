package main

import (
	"image"
	"image/color"
	"math"
)

// sample averages src over the box [x0,x1)×[y0,y1) in source pixels, with
// premultiplied alpha so transparent edges do not darken. A box smaller
// than a pixel (upscaling) is read bilinearly at its centre.
func sample(src image.Image, b image.Rectangle, x0, x1, y0, y1 float64) color.NRGBA {
	if x1-x0 < 1 {
		return bilinear(src, b, (x0+x1)/2-0.5, (y0+y1)/2-0.5)
	}
	var r, g, bl, a, w float64
	for sy := int(y0); float64(sy) < y1; sy++ {
		for sx := int(x0); float64(sx) < x1; sx++ {
			wx := math.Min(x1, float64(sx+1)) - math.Max(x0, float64(sx))
			wy := math.Min(y1, float64(sy+1)) - math.Max(y0, float64(sy))
			pr, pg, pb, pa := src.At(b.Min.X+sx, b.Min.Y+sy).RGBA()
			k := wx * wy
			r, g, bl, a, w = r+k*float64(pr), g+k*float64(pg), bl+k*float64(pb), a+k*float64(pa), w+k
		}
	}
	return unpremul(r/w, g/w, bl/w, a/w)
}

func bilinear(src image.Image, b image.Rectangle, fx, fy float64) color.NRGBA {
	clamp := func(v, hi int) int { return max(0, min(v, hi-1)) }
	x0, y0 := int(math.Floor(fx)), int(math.Floor(fy))
	tx, ty := fx-float64(x0), fy-float64(y0)
	var acc [4]float64
	for _, p := range [4]struct {
		x, y int
		k    float64
	}{{x0, y0, (1 - tx) * (1 - ty)}, {x0 + 1, y0, tx * (1 - ty)}, {x0, y0 + 1, (1 - tx) * ty}, {x0 + 1, y0 + 1, tx * ty}} {
		r, g, bl, a := src.At(b.Min.X+clamp(p.x, b.Dx()), b.Min.Y+clamp(p.y, b.Dy())).RGBA()
		acc[0] += p.k * float64(r)
		acc[1] += p.k * float64(g)
		acc[2] += p.k * float64(bl)
		acc[3] += p.k * float64(a)
	}
	return unpremul(acc[0], acc[1], acc[2], acc[3])
}

// unpremul turns 16-bit premultiplied channels into 8-bit NRGBA.
func unpremul(r, g, b, a float64) color.NRGBA {
	if a <= 0 {
		return color.NRGBA{}
	}
	c := func(v float64) uint8 { return uint8(math.Round(math.Min(255, v/a*255))) }
	return color.NRGBA{R: c(r), G: c(g), B: c(b), A: uint8(math.Round(a / 257))}
}
