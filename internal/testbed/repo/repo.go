// Package repo finds the repository a test or a rig runs in.
package repo

import (
	"fmt"
	"os"
	"path/filepath"
)

// Root walks up from the working directory to the directory holding
// go.mod: tests and rigs find testdata/ from wherever they run.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repo root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("find repo root: no go.mod above the working directory")
		}
		dir = parent
	}
}
