package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	for _, body := range []string{"first\n", "second, longer\n"} {
		if err := WriteAtomic(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != body {
			t.Fatalf("read back %q, %v; want %q", got, err, body)
		}
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", st.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("temp files left: %v", entries)
	}
	if err := WriteAtomic(filepath.Join(dir, "missing", "x"), []byte("x"), 0o600); err == nil {
		t.Fatal("a write into a missing directory succeeded")
	}
}

func TestNearestDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o600)
	tests := []struct{ in, want string }{
		{dir, dir},
		{filepath.Join(dir, "a", "b"), dir},
		{filepath.Join(file, "x"), dir},
	}
	for _, tt := range tests {
		if got := NearestDir(tt.in); got != tt.want {
			t.Errorf("NearestDir(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
