package deptest_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// walkGoFiles calls visit with the slash path (relative to root) and the
// source of every .go file the go tool would build or test, passing over
// the folders skip names, and returns how many files it visited.
func walkGoFiles(t *testing.T, root string, skip func(rel string) bool, visit func(rel string, src []byte) error) int {
	t.Helper()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			// The go tool ignores folders named testdata or starting
			// with "." or "_"; node_modules holds npm's code.
			if name := d.Name(); path != root && (name == "testdata" || name == "node_modules" ||
				strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || skip(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		return visit(rel, src)
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
