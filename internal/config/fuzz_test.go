package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to the loader (everything Load does after
// reading the file): it must never panic, and must return either a config
// that passes Validate or an error wrapping ErrInvalid.
func FuzzLoad(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.toml"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("server = [[{}]]\n"))
	f.Add([]byte("[[server.headers]]\n"))
	f.Add([]byte("host = 1\n[host]\n"))
	// Deep nesting must stay cheap (the index stops at maxIndexDepth).
	f.Add([]byte("server = " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000)))
	f.Add([]byte("host = " + strings.Repeat("{a = ", 3000) + "1" + strings.Repeat("}", 3000)))
	env := testEnv(fixtureVars)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parse("fuzz.toml", data, env)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("loaded config fails Validate: %v", err)
		}
	})
}

func BenchmarkParseFull(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "full.toml"))
	if err != nil {
		b.Fatal(err)
	}
	env := testEnv(fixtureVars)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse("full.toml", data, env); err != nil {
			b.Fatal(err)
		}
	}
}
