package homeguard

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A host writing its files into a HOME is seen: a file added, one
// changed, one removed; a file outside the watched places is not.
func TestChangesSeen(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(".gemini/settings.json", "{}")
	write(".codex/config.toml", "")
	before := Take(home)
	if got := before.Changed(Take(home)); len(got) != 0 {
		t.Fatalf("nothing done, changes seen: %v", got)
	}
	write(".gemini/projects.json.1234.tmp", "{}")
	write(".gemini/settings.json", `{"mcpServers": {}}`)
	if err := os.Remove(filepath.Join(home, ".codex/config.toml")); err != nil {
		t.Fatal(err)
	}
	write("notes.txt", "mine")
	got := before.Changed(Take(home))
	want := []string{"added " + filepath.Join(home, ".gemini/projects.json.1234.tmp"), "changed " + filepath.Join(home, ".gemini/settings.json"),
		"removed " + filepath.Join(home, ".codex/config.toml")}
	if !slices.Equal(got, want) {
		t.Fatalf("changes %q\nwant %q", got, want)
	}
}
