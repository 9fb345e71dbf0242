//go:build linux

package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestMissingToolFailsWithInstallCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		absent  string
		wantErr bool
	}{
		{"all present", "", false},
		{"no tray host", "gtk-sni-tray-standalone", true},
		{"no watcher", "status-notifier-watcher", true},
		{"no Xvfb", "Xvfb", true},
		{"no dbus-run-session", "dbus-run-session", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := missingTools(func(tool string) (string, error) {
				if tool == tc.absent {
					return "", exec.ErrNotFound
				}
				return "/usr/bin/" + tool, nil
			})
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err != nil && (!strings.Contains(err.Error(), InstallHint) || !strings.Contains(err.Error(), tc.absent)) {
				t.Fatalf("err = %q, want the tool and %q", err, InstallHint)
			}
		})
	}
}

// TestScriptFailsWithoutTools runs scripts/desktop-test.sh with an empty
// PATH: it must fail, naming the install command, not skip.
func TestScriptFailsWithoutTools(t *testing.T) {
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "desktop-test.sh")
	cmd := exec.CommandContext(t.Context(), "/bin/sh", script)
	cmd.Env = []string{"PATH=" + t.TempDir(), "HOME=" + os.TempDir()}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("script with no tools: err %v, output %s; want a failing exit", err, out)
	}
	if !strings.Contains(string(out), InstallHint) || !strings.Contains(string(out), "Xvfb") {
		t.Fatalf("script output %q lacks the install command", out)
	}
}
