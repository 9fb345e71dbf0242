package hostfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// FuzzRewrite: a host's config file is the user's, and may hold anything.
// Reading it never panics; every editable URL found can be rewritten and
// put back, and putting it back gives the file byte for byte.
func FuzzRewrite(f *testing.F) {
	for _, fx := range fixtures {
		data, err := os.ReadFile(filepath.Join("testdata", fx.file))
		if err != nil {
			f.Fatal(err)
		}
		format, _ := FormatOf(fx.file)
		f.Add(string(format), data)
	}
	f.Add("yaml", []byte("- name: x\n  config: {serverName: a, url: 'http://h/''q'}\n"))
	f.Add("json", []byte(`{"mcpServers":{"a":{"url":"http:\/\/h\/mcp"}}}`))
	layouts := map[Format]host.Layout{JSON: host.ClaudeCode().Layout, TOML: host.CodexCLI().Layout, YAML: host.DSH().Layout}
	f.Fuzz(func(t *testing.T, format string, data []byte) {
		l, ok := layouts[Format(format)]
		if !ok {
			return
		}
		l.Plugin = host.DSH().Layout.Plugin // every layout looks for both shapes
		l.Plugin.Value = "x"
		ss, err := Servers(Format(format), data, l)
		if err != nil {
			return
		}
		for _, s := range ss {
			if !s.Editable {
				continue
			}
			const to = "http://127.0.0.1:1/k/mcp"
			out, err := Rewrite(Format(format), data, l, []Edit{{Path: s.Path, From: s.URL, To: to}})
			if err != nil {
				continue // two entries at one path, say: refused, and that is fine
			}
			back, err := Rewrite(Format(format), out, l, []Edit{{Path: s.Path, From: to, To: s.URL, Literal: s.Literal}})
			if err != nil {
				t.Fatalf("putting %s back: %v", s.Literal, err)
			}
			if !bytes.Equal(back, data) {
				t.Fatalf("put back, the file differs:\n%q\n%q", data, back)
			}
		}
	})
}
