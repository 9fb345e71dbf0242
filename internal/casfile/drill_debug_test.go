//go:build watchdogdebug

package casfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A fault at each step leaves the file as it was and no temp file behind.
func TestFaultAtEachStepLeavesTheFile(t *testing.T) {
	t.Parallel()
	for _, step := range []string{"write", "swap"} {
		dir := t.TempDir()
		path := filepath.Join(dir, "f")
		write(t, path, "as it was", 0o600)
		full := errors.New("no space left on device")
		err := Replace(mustRead(t, path), []byte("new"), &Options{drill{Fault: func(s string) error {
			if s == step {
				return full
			}
			return nil
		}}})
		if !errors.Is(err, full) {
			t.Errorf("%s: %v", step, err)
		}
		if b, _ := os.ReadFile(path); string(b) != "as it was" {
			t.Errorf("%s: the file holds %q", step, b)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
			t.Errorf("%s: temp files left: %v", step, left)
		}
	}
}
