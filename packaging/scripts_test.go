package packaging

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// script runs a scripts/*.sh from the repo root with extra env and returns
// its stdout (the artifact's path).
func script(t *testing.T, name string, env ...string) string {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join("..", "scripts", name))
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

func dpkgDeb(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("dpkg-deb")
	if err != nil {
		t.Fatal("dpkg-deb not found: apt-get install dpkg")
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("dpkg-deb %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestDeb builds the .deb as `make deb` does (into a temp dir) and checks
// its file list, control fields, and that the packaged binary runs.
func TestDeb(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	deb := script(t, "deb.sh", "VERSION=v9.8.7-3-gabcdef", "COMMIT=abcdef1", "GOARCH="+runtime.GOARCH,
		"BIN="+filepath.Join(tmp, "bin/watchdog"), "DIST="+filepath.Join(tmp, "dist"))
	if want := filepath.Join(tmp, "dist", "mcp-watchdog_9.8.7+3+gabcdef_"+runtime.GOARCH+".deb"); deb != want {
		t.Fatalf("deb.sh made %q, want %q", deb, want)
	}
	var files []string
	for _, l := range strings.Split(dpkgDeb(t, "-c", deb), "\n") {
		if f := strings.Fields(l); len(f) >= 6 && !strings.HasSuffix(f[5], "/") {
			files = append(files, strings.TrimPrefix(f[5], "."))
		}
	}
	want := []string{"/usr/bin/watchdog", "/usr/share/applications/mcp-watchdog.desktop",
		"/usr/lib/systemd/user/mcp-watchdog.service", "/usr/share/doc/mcp-watchdog/README.md"}
	for _, n := range []string{"16", "24", "32", "48", "64", "128", "256"} {
		want = append(want, "/usr/share/icons/hicolor/"+n+"x"+n+"/apps/mcp-watchdog.png")
	}
	pages, err := filepath.Glob(filepath.Join("..", "docs", "*.md")) // the README's links land there
	if err != nil || len(pages) == 0 {
		t.Fatalf("docs/*.md: %v, %d pages", err, len(pages))
	}
	for _, p := range pages {
		want = append(want, "/usr/share/doc/mcp-watchdog/docs/"+filepath.Base(p))
	}
	slices.Sort(want)
	slices.Sort(files)
	if !slices.Equal(files, want) {
		t.Errorf("deb files:\n%s\nwant:\n%s", strings.Join(files, "\n"), strings.Join(want, "\n"))
	}
	fields := map[string]string{"Package": "mcp-watchdog", "Version": "9.8.7+3+gabcdef", "Architecture": runtime.GOARCH}
	for k, v := range fields {
		if got := strings.TrimSpace(dpkgDeb(t, "-f", deb, k)); got != v {
			t.Errorf("control %s = %q, want %q", k, got, v)
		}
	}
	for _, k := range []string{"Maintainer", "Description"} {
		if got := strings.TrimSpace(dpkgDeb(t, "-f", deb, k)); len(got) < 5 {
			t.Errorf("control %s = %q, want a value", k, got)
		}
	}
	root := filepath.Join(tmp, "root")
	dpkgDeb(t, "-x", deb, root)
	out, err := exec.Command(filepath.Join(root, "usr/bin/watchdog"), "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "watchdog v9.8.7-3-gabcdef (commit abcdef1") {
		t.Fatalf("packaged watchdog version: %v\n%s", err, out)
	}
	desktopFileValidate(t, filepath.Join(root, "usr/share/applications/mcp-watchdog.desktop"))
	if fi, err := os.Stat(filepath.Join(root, "usr/bin/watchdog")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("usr/bin/watchdog mode: %v %v", fi, err)
	}
	// Removing the package gives every host back (cmd/watchdog's
	// TestPrermGivesEveryUsersHostsBack runs the script itself).
	control := filepath.Join(tmp, "control")
	dpkgDeb(t, "-e", deb, control)
	if b, err := os.ReadFile(filepath.Join(control, "prerm")); err != nil || !strings.Contains(string(b), "hosts release --all") {
		t.Errorf("the package's prerm: %v\n%s", err, b)
	}
}

// TestAppBundle assembles the .app around a given binary (the darwin build
// itself is covered by CI's GOOS=darwin vet) and checks the layout and the
// version filled into Info.plist.
func TestAppBundle(t *testing.T) {
	t.Parallel()
	tests := []struct{ version, short string }{
		{"v1.4.2-7-gdeadbee", "1.4.2"},
		{"v2.0", "2.0"},
		{"1c319a9-dirty", "0.0.0"}, // no tag yet: git describe gives a commit
	}
	for _, tc := range tests {
		tmp := t.TempDir()
		bin := filepath.Join(tmp, "watchdog-darwin")
		if err := os.WriteFile(bin, []byte("stand-in darwin binary"), 0o644); err != nil {
			t.Fatal(err)
		}
		app := script(t, "macos-app.sh", "VERSION="+tc.version, "DARWIN_BIN="+bin, "OUT="+filepath.Join(tmp, "build"))
		if want := filepath.Join(tmp, "build", "MCP Session Watchdog.app"); app != want {
			t.Fatalf("app at %q, want %q", app, want)
		}
		fi, err := os.Stat(filepath.Join(app, "Contents/MacOS/watchdog"))
		if err != nil || fi.Mode().Perm() != 0o755 {
			t.Fatalf("Contents/MacOS/watchdog: %v %v", fi, err)
		}
		if pk, err := os.ReadFile(filepath.Join(app, "Contents/PkgInfo")); err != nil || string(pk) != "APPL????" {
			t.Errorf("PkgInfo = %q, %v", pk, err)
		}
		data, err := os.ReadFile(filepath.Join(app, "Contents/Info.plist"))
		if err != nil {
			t.Fatal(err)
		}
		checkInfoPlist(t, data, tc.short)
	}
}
