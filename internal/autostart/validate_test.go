package autostart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// enabled writes kind k for a binary whose path needs quoting and returns
// the file's path and that binary.
func enabled(t *testing.T, k Kind) (path, exe string) {
	t.Helper()
	exe = exeFor(t, k)
	p, err := Enable(Options{Kind: k, Home: t.TempDir(), Exe: exe, GOOS: "linux", Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	return p, exe
}

// DesktopFileValidate runs desktop-file-validate (Debian: desktop-file-utils)
// on a .desktop file and fails the test on any complaint. Exported to tests
// only through this package; packaging has its own copy for the menu entry.
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

func TestXDGValidates(t *testing.T) {
	t.Parallel()
	for _, exe := range []string{plainExe(t), fakeExe(t)} {
		p, err := Enable(Options{Kind: XDG, Home: t.TempDir(), Exe: exe, GOOS: "linux", Getenv: noEnv})
		if err != nil {
			t.Fatal(err)
		}
		desktopFileValidate(t, p)
		data, _ := os.ReadFile(p)
		for _, want := range []string{"Type=Application", "X-GNOME-Autostart-enabled=true", "Icon=mcp-watchdog"} {
			if !bytes.Contains(data, []byte(want)) {
				t.Errorf("%s lacks %q", p, want)
			}
		}
	}
}

// plist is the subset of a launchd property list the test checks, decoded
// with encoding/xml independently of the package's own reader.
type plist struct {
	XMLName xml.Name `xml:"plist"`
	Dict    struct {
		Items []plistItem `xml:",any"`
	} `xml:"dict"`
}

type plistItem struct {
	XMLName xml.Name
	Text    string   `xml:",chardata"`
	Strings []string `xml:"string"`
}

// plistKeys pairs each <key> with the element after it.
func plistKeys(t *testing.T, data []byte) map[string]plistItem {
	t.Helper()
	var p plist
	if err := xml.Unmarshal(data, &p); err != nil {
		t.Fatalf("plist is not well-formed XML: %v", err)
	}
	m := map[string]plistItem{}
	items := p.Dict.Items
	for i := 0; i+1 < len(items); i += 2 {
		if items[i].XMLName.Local != "key" {
			t.Fatalf("dict item %d is <%s>, want <key>", i, items[i].XMLName.Local)
		}
		m[items[i].Text] = items[i+1]
	}
	return m
}

func TestLaunchAgentPlist(t *testing.T) {
	t.Parallel()
	p, exe := enabled(t, LaunchAgent)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	keys := plistKeys(t, data)
	check := func(key, elem, text string) {
		t.Helper()
		it, ok := keys[key]
		if !ok || it.XMLName.Local != elem || strings.TrimSpace(it.Text) != text {
			t.Errorf("%s = <%s>%q, want <%s>%q", key, it.XMLName.Local, it.Text, elem, text)
		}
	}
	check("Label", "string", BundleID)
	check("RunAtLoad", "true", "")
	check("KeepAlive", "false", "")
	check("ProcessType", "string", "Interactive")
	args := keys["ProgramArguments"]
	if args.XMLName.Local != "array" || len(args.Strings) != 2 || args.Strings[0] != exe || args.Strings[1] != "run" {
		t.Errorf("ProgramArguments = %+v, want [%q run]", args, exe)
	}
	if plutil, err := exec.LookPath("plutil"); err == nil { // macOS only
		if out, err := exec.Command(plutil, "-lint", p).CombinedOutput(); err != nil {
			t.Errorf("plutil -lint: %v\n%s", err, out)
		}
	}
}

// TestSystemdUnitVerifies runs `systemd-analyze verify --user` on the unit.
// systemd-analyze needs a runtime directory for a user manager; a private
// XDG_RUNTIME_DIR gives it one without a user bus.
func TestSystemdUnitVerifies(t *testing.T) {
	t.Parallel()
	p, _ := enabled(t, Systemd)
	structuralUnitCheck(t, p)
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Fatal("systemd-analyze not found: apt-get install systemd")
	}
	out, verr := systemdVerify(t, sa, p)
	if cannotVerify(out) {
		t.Fatalf("systemd-analyze cannot start its user manager here (%s), so the unit went unverified: "+
			"it needs systemd's own files (apt-get install systemd, as scripts/deps-debian.sh does) and a writable XDG_RUNTIME_DIR", firstLine(out))
	}
	if verr != nil || mentions(out, p) {
		t.Fatalf("systemd-analyze verify --user %s: %v\n%s", p, verr, out)
	}
	t.Logf("systemd-analyze verify --user: no complaint about %s", filepath.Base(p))
	// The check can fail: a misspelt key draws a warning naming the file.
	bad := filepath.Join(t.TempDir(), UnitName)
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(bad, bytes.Replace(data, []byte("Restart="), []byte("Restrt="), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _ := systemdVerify(t, sa, bad); !mentions(out, bad) {
		t.Fatalf("systemd-analyze did not flag a misspelt key:\n%s", out)
	}
}

func systemdVerify(t *testing.T, sa, unit string) (string, error) {
	t.Helper()
	rt := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sa, "verify", "--user", unit)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+rt, "SYSTEMD_LOG_COLOR=0")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// cannotVerify: systemd-analyze could not start its user manager at all,
// which says nothing about the unit.
func cannotVerify(out string) bool {
	return strings.Contains(out, "Failed to initialize manager") ||
		strings.Contains(out, "Failed to lookup RuntimeDirectory")
}

func mentions(out, unit string) bool {
	return strings.Contains(out, unit) || strings.Contains(out, filepath.Base(unit)+":")
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// structuralUnitCheck: sections, the keys the brief requires, and the
// ExecStart binary is an executable file.
func structuralUnitCheck(t *testing.T, p string) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]string]string{
		{"Unit", "PartOf"}:                "graphical-session.target",
		{"Unit", "After"}:                 "graphical-session.target",
		{"Unit", "StartLimitBurst"}:       "5",
		{"Service", "Restart"}:            "on-failure",
		{"Install", "WantedBy"}:           "graphical-session.target",
		{"Unit", "StartLimitIntervalSec"}: "120",
	}
	for k, v := range want {
		if got, ok := keyValue(data, k[0], k[1]); !ok || got != v {
			t.Errorf("[%s] %s = %q, want %q", k[0], k[1], got, v)
		}
	}
	exe := ExeOf(Systemd, data)
	fi, err := os.Stat(exe)
	if err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("ExecStart binary %q: %v", exe, err)
	}
	if errors.Is(err, os.ErrNotExist) {
		t.Errorf("ExecStart does not name an existing file")
	}
}
