package config

import (
	"testing"

	"github.com/pelletier/go-toml/v2/unstable"
)

func TestIndexLines(t *testing.T) {
	doc := `notify = true                      # 1
host.port = 3080                   # 2
[[server]]                         # 3
name = "a"                         # 4
[server.headers]                   # 5
"X.Dotted" = "1"                   # 6
[[server]]                         # 7
logs = [                           # 8
  "/a",                            # 9
  "/b",                            # 10
]                                  # 11
headers = { A = "1" }              # 12
[host]                             # 13
restart = ["dsh", "web"]           # 14
`
	ix := buildIndex([]byte(doc))
	tests := []struct {
		path string
		line int
	}{
		{"notify", 1},
		{"host", 2},
		{"host.port", 2},
		{"server", 3},
		{"server[0]", 3},
		{"server[0].name", 4},
		{"server[0].headers", 5},
		{`server[0].headers."X.Dotted"`, 6},
		{"server[1]", 7},
		{"server[1].logs", 8},
		{"server[1].logs[0]", 9},
		{"server[1].logs[1]", 10},
		{"server[1].headers.A", 12},
		{"host.restart", 14},
		{"host.restart[1]", 14},
		// Not in the document: the nearest enclosing key's line.
		{"server[1].url", 7},
		{"server[0].headers.Missing", 5},
		{"metrics_listen", 0},
	}
	for _, tt := range tests {
		if got := ix.line(tt.path); got != tt.line {
			t.Errorf("line(%q) = %d, want %d", tt.path, got, tt.line)
		}
	}
	if e := ix.entries["server[1].logs"]; e.kind != unstable.Array {
		t.Errorf("kind of server[1].logs = %v, want Array", e.kind)
	}
	if path, _, ok := ix.find(12, []string{"A"}); !ok || path != "server[1].headers.A" {
		t.Errorf("find(12, A) = %q, %v", path, ok)
	}
	if path, _, ok := ix.find(4, []string{"server", "name"}); !ok || path != "server[0].name" {
		t.Errorf("find(4, server.name) = %q, %v", path, ok)
	}
	var nilIndex *keyIndex
	if nilIndex.line("notify") != 0 {
		t.Error("nil index knows a line")
	}
}

// A syntax error stops the walk but keeps what came before.
func TestIndexStopsAtSyntaxError(t *testing.T) {
	ix := buildIndex([]byte("notify = true\nport = = 1\nname = \"x\"\n"))
	if ix.line("notify") != 1 {
		t.Error("lost the key before the error")
	}
	if ix.line("name") != 0 {
		t.Error("indexed past the error")
	}
}
