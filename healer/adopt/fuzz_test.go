package adopt

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/host"
)

// FuzzAdoptRelease: a host's file is the user's and may hold anything,
// in every format adopt edits. Adopt never panics and never writes a file
// it cannot give back: whenever it changed the file, release gives it back
// byte for byte, and the record agrees with the watchdog's config after
// each.
func FuzzAdoptRelease(f *testing.F) {
	for _, fx := range []struct{ name, as string }{{"cursor.json", "mcp.json"}, {"codex.toml", "config.toml"}, {"dsh-cordis.yml", "cordis.yml"},
		{"claude-code.json", ".claude.json"}, {"vscode.json", "mcp.json"}} {
		data, err := os.ReadFile(filepath.Join("..", "..", "internal", "host", "hostfile", "testdata", fx.name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(filepath.Ext(fx.as), data)
	}
	f.Add(".json", []byte("\uFEFF{\"mcpServers\": {\"a\": {\"url\": \"http://127.0.0.1:1/mcp\"}, \"a\": {\"url\": \"ws://x\"}}}"))
	f.Add(".toml", []byte("[mcp_servers.'a b']\nurl = 'http://127.0.0.1:1/mcp'\n"))
	f.Add(".yaml", []byte("- name: '@deepseek-ai/dsh-mcp-client'\n  config: {serverName: a, url: \"http://127.0.0.1:1/\\u006dcp\"}\n"))
	f.Add(".json", []byte(`{"mcpServers": {"s": {"command": "it's \"x\"\n$(y)", "args": ["stdio"]}, "t": {"command": "/usr/bin/watchdog", "args": ["stdio"]}}}`))
	f.Add(".toml", []byte("[mcp_servers.s]\ncommand = '''npx'''\n[mcp_servers.t]\ncommand = \"\"\"\nnpx\"\"\"\n"))
	profiles := map[string]host.Profile{".json": host.ClaudeCode(), ".toml": host.CodexCLI(), ".yaml": host.DSH(), ".yml": host.DSH()}
	f.Fuzz(func(t *testing.T, ext string, data []byte) {
		p, ok := profiles[ext]
		if !ok || len(data) > 1<<16 {
			return
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "host"+ext)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		r := &rig{taken: map[string]bool{}}
		r.o = Options{Host: p, Files: []string{path}, ConfigPath: filepath.Join(dir, "config.toml"), StateDir: filepath.Join(dir, "state"),
			Secret: proxy.NewSecret(), Free: func(string) bool { return true }}
		res, err := Adopt(t.Context(), r.o)
		agree(t, r.o)
		if err != nil || !res.Changed {
			if now, _ := os.ReadFile(path); !bytes.Equal(now, data) {
				t.Fatalf("adopt changed nothing it says, yet the file differs:\n%q\n%q", data, now)
			}
			return
		}
		if _, err := Release(t.Context(), r.o); err != nil {
			t.Fatalf("release after adopt: %v", err)
		}
		agree(t, r.o)
		if now, _ := os.ReadFile(path); !bytes.Equal(now, data) {
			t.Fatalf("released, the file differs:\n%q\n%q", data, now)
		}
	})
}
