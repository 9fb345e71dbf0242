package deptest_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Fakes of what scripts/deps-debian.sh runs. They log to $FAKE_LOG what
// they were asked; dpkg-query reports the packages in $FAKE_MISSING as not
// installed; sudo -n succeeds only when $FAKE_SUDO is "ok" and runs nothing.
const (
	fakeDpkgQuery = `#!/bin/sh
for p; do pkg=$p; done
case " $FAKE_MISSING " in *" $pkg "*) echo "dpkg-query: no packages found matching $pkg" >&2; exit 1;; esac
printf 'install ok installed'
`
	fakeAptGet = `#!/bin/sh
echo "DEBIAN_FRONTEND=$DEBIAN_FRONTEND apt-get $*" >>"$FAKE_LOG"
`
	fakeSudo = `#!/bin/sh
echo "sudo $*" >>"$FAKE_LOG"
[ "$1" = -n ] && [ "$FAKE_SUDO" = ok ]
`
	fakeTool = "#!/bin/sh\n"
)

// TestDepsDebian runs scripts/deps-debian.sh with nothing on PATH but
// fakes, as root, as a user with and without sudo, and on a system
// without dpkg: it installs only what is missing, or fails naming it and
// the command that installs it.
func TestDepsDebian(t *testing.T) {
	t.Parallel()
	const user, root = "1000", "0"
	debian := []string{"dpkg-query", "apt-get"}
	// The commands the script checks on a system without dpkg.
	commands := []string{"make", "node", "npm", "Xvfb", "dbus-daemon", "dbus-launch", "status-notifier-watcher",
		"gtk-sni-tray-standalone", "gdbus", "xwd", "desktop-file-validate", "systemd-analyze", "chromium", "dunst", "xdotool",
		"python3", "nginx", "haproxy"}
	tests := []struct {
		name    string
		uid     string
		fakes   []string // commands on PATH besides the Debian ones
		noDpkg  bool
		missing string // packages dpkg-query says are not installed
		sudo    string // FAKE_SUDO
		ok      bool
		log     []string // what apt-get and sudo were asked, in order
		says    []string // in the output
	}{
		{name: "all installed: nothing to do", uid: user, ok: true, says: []string{"installed"}},
		{name: "root installs what is missing", uid: root, missing: "x11-apps desktop-file-utils", ok: true, log: []string{
			"DEBIAN_FRONTEND= apt-get update -qq",
			"DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends x11-apps desktop-file-utils",
		}},
		{name: "a user with sudo -n installs with it", uid: user, fakes: []string{"sudo"}, sudo: "ok", missing: "desktop-file-utils", ok: true, log: []string{
			"sudo -n true",
			"sudo -n apt-get update -qq",
			"sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends desktop-file-utils",
		}},
		{name: "a user without sudo is told what to run", uid: user, missing: "x11-apps desktop-file-utils", says: []string{
			"not installed: x11-apps desktop-file-utils",
			"sudo apt-get update && sudo apt-get install -y --no-install-recommends x11-apps desktop-file-utils",
		}},
		{name: "sudo that wants a password is not asked", uid: user, fakes: []string{"sudo"}, missing: "systemd",
			log: []string{"sudo -n true"}, says: []string{"sudo apt-get install -y --no-install-recommends systemd"}},
		{name: "node from elsewhere counts as installed", uid: user, fakes: []string{"node", "npm"}, missing: "nodejs npm", ok: true},
		{name: "no node at all", uid: user, missing: "nodejs npm", says: []string{"not installed: nodejs npm"}},
		{name: "not Debian: names the missing commands", noDpkg: true, uid: user, fakes: []string{"make", "node", "npm"}, says: []string{
			"no dpkg-query/apt-get", "desktop-file-validate (Debian: desktop-file-utils)", "Xvfb (Debian: xvfb)", "package manager",
		}},
		{name: "not Debian, every command there", noDpkg: true, uid: user, fakes: commands, ok: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fakes := tc.fakes
			if !tc.noDpkg {
				fakes = append(slices.Clone(fakes), debian...)
			}
			out, log, err := runDepsDebian(t, fakes, tc.uid, "FAKE_MISSING="+tc.missing, "FAKE_SUDO="+tc.sudo)
			checkDepsRun(t, out, log, err, tc.ok, tc.log, tc.says)
		})
	}
}

// runDepsDebian runs the script with a PATH of the fakes named (dpkg-query,
// apt-get and sudo as above, anything else a command that does nothing),
// as the user id uid. It returns the script's output,
// what the fakes logged and how it exited.
func runDepsDebian(t *testing.T, fakes []string, uid string, env ...string) (out string, log []string, err error) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash not found: scripts/deps-debian.sh is a bash script")
	}
	bin, logPath := t.TempDir(), filepath.Join(t.TempDir(), "log")
	for _, name := range fakes {
		body := map[string]string{"dpkg-query": fakeDpkgQuery, "apt-get": fakeAptGet, "sudo": fakeSudo}[name]
		if body == "" {
			body = fakeTool
		}
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bash, filepath.Join(repoRoot(t), "scripts", "deps-debian.sh"))
	cmd.Env = append([]string{"PATH=" + bin, "FAKE_LOG=" + logPath, "DEPS_DEBIAN_UID=" + uid}, env...)
	b, err := cmd.CombinedOutput()
	logged, rerr := os.ReadFile(logPath)
	if rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		t.Fatal(rerr)
	}
	if s := strings.TrimSpace(string(logged)); s != "" {
		log = strings.Split(s, "\n")
	}
	return string(b), log, err
}

// checkDepsRun compares a run of the script with what the case wants: its
// success, the fakes' log and the phrases of its output.
func checkDepsRun(t *testing.T, out string, log []string, err error, ok bool, wantLog, says []string) {
	t.Helper()
	var exit *exec.ExitError
	switch {
	case ok && err != nil:
		t.Errorf("script failed: %v\n%s", err, out)
	case !ok && !errors.As(err, &exit):
		t.Errorf("script exited 0 (err %v), want a failure\n%s", err, out)
	}
	if !slices.Equal(log, wantLog) {
		t.Errorf("apt-get and sudo were asked\n%q\nwant\n%q\noutput:\n%s", log, wantLog, out)
	}
	for _, s := range says {
		if !strings.Contains(out, s) {
			t.Errorf("output does not say %q:\n%s", s, out)
		}
	}
}
