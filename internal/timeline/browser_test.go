package timeline

import (
	"bytes"
	"context"
	"flag"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var savePNG = flag.String("timeline.png", "", "also save the browser's screenshot of the page here (make pictures: docs/timeline.png)")

// chromium finds Debian's headless-capable Chromium; a machine without it
// fails the test with the step that installs it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Fatal("no Chromium on PATH: run scripts/deps-debian.sh (Debian package chromium), or set CHROMIUM to a Chrome binary")
	return ""
}

// runChromium runs headless Chromium on the page with a profile of its own.
func runChromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--user-data-dir=" + t.TempDir(), "--hide-scrollbars"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.String())
	}
	return out
}

// TestTimelineInChromium: a real browser loads the page of a real journal
// (three minutes of the chaos soak): its DOM has a bar for each of the
// host's sessions and the others summed, the incident count on top, and it
// draws.
func TestTimelineInChromium(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	recs := readFixture(t, "soak-3min.jsonl")
	page := Build(recs, recs[0].Time, recs[len(recs)-1].Time)
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	var buf bytes.Buffer
	if err := Render(&buf, page, Options{Generated: page.To, Source: "testdata/soak-3min.jsonl"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	url := "file://" + path

	dom := string(runChromium(t, bin, "--dump-dom", url))
	bars, summed := countSessions(dom)
	if want := fixtureSessions(recs); bars+summed != want || summed == 0 || bars == 0 {
		t.Errorf("the browser's DOM has %d session bars and %d sessions summed, want %d in all, both kinds",
			bars, summed, want)
	}
	if !strings.Contains(dom, `<dd id="incidents">36</dd>`) {
		t.Errorf("the browser's DOM does not show 36 incidents:\n%.2000s", dom)
	}
	if rows := strings.Count(dom, `<tr class="incident-row">`); rows != 36 {
		t.Errorf("%d rows in the incident table, want 36", rows)
	}

	shot := filepath.Join(dir, "timeline.png")
	runChromium(t, bin, "--window-size=1240,1000", "--screenshot="+shot, url)
	img := decodePNG(t, shot)
	if b := img.Bounds(); b.Dx() != 1240 || b.Dy() != 1000 {
		t.Errorf("screenshot is %v, want 1240x1000", b)
	}
	if colors := distinctColors(img); colors < 8 {
		t.Errorf("the screenshot has %d colours: the page did not draw", colors)
	}
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return img
}

func distinctColors(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r >> 8, g >> 8, bl >> 8, a >> 8}] = true
		}
	}
	return len(seen)
}
