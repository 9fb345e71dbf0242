package config

import (
	"reflect"
	"testing"
)

// TestAddedTextComesOutAgain: what adopt adds to a config file parses,
// reads back, and Remove gives the file back byte for byte.
func TestAddedTextComesOutAgain(t *testing.T) {
	t.Parallel()
	const base = "# mine\n[host]\nname = \"DSH\"\n\n[[server]]\nname = \"mem\"\nurl = \"http://127.0.0.1:14242/mcp\" # Nowledge Mem\nkeep_warm = true\n\n[[server]]\nname = \"other\"\nurl = \"http://127.0.0.1:9000/mcp\""
	tables, err := ServerTables([]byte(base))
	if err != nil || len(tables) != 2 || tables[0].Name != "mem" || tables[1].URL != "http://127.0.0.1:9000/mcp" {
		t.Fatalf("tables %+v, %v", tables, err)
	}
	data, a1 := AddProxyListen([]byte(base), tables[0], "127.0.0.1:14301")
	data, a2 := AddProxyListen(data, mustTables(t, data)[1], "127.0.0.1:14302")
	data, a3 := AddServer(data, "claude-code-tracker", "http://localhost:8931/mcp", "127.0.0.1:14303", "Claude Code: tracker")
	c, err := Parse("config.toml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	var listens []string
	for _, s := range c.Servers {
		listens = append(listens, s.Name+"="+s.ProxyListen)
	}
	want := []string{"mem=127.0.0.1:14301", "other=127.0.0.1:14302", "claude-code-tracker=127.0.0.1:14303"}
	if !reflect.DeepEqual(listens, want) {
		t.Fatalf("servers %v, want %v\n%s", listens, want, data)
	}
	for _, a := range []Added{a3, a1, a2} {
		var ok bool
		if data, ok = a.Remove(data); !ok {
			t.Fatalf("%q not found in\n%s", a.Text, data)
		}
	}
	if string(data) != base {
		t.Fatalf("after removal:\n%q\nwant\n%q", data, base)
	}
	if _, ok := a1.Remove(data); ok {
		t.Fatal("removed text that was no longer there")
	}
}

func mustTables(t *testing.T, data []byte) []ServerTable {
	t.Helper()
	tables, err := ServerTables(data)
	if err != nil {
		t.Fatal(err)
	}
	return tables
}
