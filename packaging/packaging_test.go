package packaging

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
)

// The shipped unit is the autostart template rendered for /usr/bin/watchdog:
// one source for both.
func TestServiceMatchesTemplate(t *testing.T) {
	t.Parallel()
	want, err := autostart.Render(autostart.Systemd, "/usr/bin/watchdog")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("linux/mcp-watchdog.service")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("linux/mcp-watchdog.service differs from internal/autostart's template: run go generate ./packaging\n--- file\n%s\n--- template\n%s", got, want)
	}
	if autostart.ExeOf(autostart.Systemd, got) != "/usr/bin/watchdog" {
		t.Fatalf("unit does not start /usr/bin/watchdog:\n%s", got)
	}
}

func TestMenuEntryValidates(t *testing.T) {
	t.Parallel()
	desktopFileValidate(t, "linux/mcp-watchdog.desktop")
	data, err := os.ReadFile("linux/mcp-watchdog.desktop")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nExec=watchdog run\n", "\nIcon=mcp-watchdog\n", "\nType=Application\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("menu entry lacks %q", strings.TrimSpace(want))
		}
	}
}

// desktopFileValidate fails the test on any complaint, hints included.
func desktopFileValidate(t *testing.T, path string) {
	t.Helper()
	bin, err := exec.LookPath("desktop-file-validate")
	if err != nil {
		t.Fatal("desktop-file-validate not found: apt-get install desktop-file-utils")
	}
	out, err := exec.Command(bin, path).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("desktop-file-validate %s: %v\n%s", path, err, out)
	}
}

// plistDict decodes a property list's top dict into key -> (element, text).
func plistDict(t *testing.T, data []byte) map[string][2]string {
	t.Helper()
	var p struct {
		Dict struct {
			Items []struct {
				XMLName xml.Name
				Text    string `xml:",chardata"`
			} `xml:",any"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal(data, &p); err != nil {
		t.Fatalf("plist is not well-formed XML: %v", err)
	}
	m := map[string][2]string{}
	items := p.Dict.Items
	for i := 0; i+1 < len(items); i += 2 {
		if items[i].XMLName.Local != "key" {
			t.Fatalf("dict item %d is <%s>, want <key>", i, items[i].XMLName.Local)
		}
		m[items[i].Text] = [2]string{items[i+1].XMLName.Local, strings.TrimSpace(items[i+1].Text)}
	}
	return m
}

// checkInfoPlist checks the keys a menu-bar app bundle needs.
func checkInfoPlist(t *testing.T, data []byte, version string) {
	t.Helper()
	keys := plistDict(t, data)
	want := map[string][2]string{
		"CFBundleIdentifier":         {"string", autostart.BundleID},
		"CFBundleExecutable":         {"string", "watchdog"},
		"CFBundlePackageType":        {"string", "APPL"},
		"LSUIElement":                {"true", ""},
		"CFBundleShortVersionString": {"string", version},
		"CFBundleVersion":            {"string", version},
	}
	for k, v := range want {
		if keys[k] != v {
			t.Errorf("Info.plist %s = %v, want %v", k, keys[k], v)
		}
	}
}

func TestInfoPlist(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("macos/Info.plist")
	if err != nil {
		t.Fatal(err)
	}
	checkInfoPlist(t, data, "@VERSION@")
}

// Every hicolor size is a PNG of that size with something drawn in it.
func TestIcons(t *testing.T) {
	t.Parallel()
	for _, n := range []int{16, 24, 32, 48, 64, 128, 256} {
		p := filepath.Join("linux/icons/hicolor", fmt.Sprintf("%dx%d", n, n), "apps/mcp-watchdog.png")
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		_ = f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		b := img.Bounds()
		if b.Dx() != n || b.Dy() != n {
			t.Errorf("%s is %dx%d", p, b.Dx(), b.Dy())
		}
		if _, _, _, a := img.At(n/2, n/2).RGBA(); a == 0 {
			t.Errorf("%s: centre pixel is transparent", p)
		}
	}
}
