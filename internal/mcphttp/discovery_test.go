package mcphttp

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

// DiscoveryOf reads a kept server/discover result as ReadDiscovery reads
// the answer that carried it: one parser for both.
func TestDiscoveryOf(t *testing.T) {
	t.Parallel()
	jsonH := http.Header{"Content-Type": {"application/json"}}
	for _, tt := range []struct {
		name, result string
		modern       bool
		info, instr  string
	}{
		{"modern, info in _meta", `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"instructions":"be kind",` +
			`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}`, true, `{"name":"s","version":"1"}`, "be kind"},
		{"legacy versions only, info at the top", `{"supportedVersions":["2025-11-25"],"serverInfo":{"name":"old","version":"0"}}`,
			false, `{"name":"old","version":"0"}`, ""},
		{"not an object", `["2026-07-28"]`, false, "", ""},
	} {
		d := DiscoveryOf(json.RawMessage(tt.result))
		if d.Modern != tt.modern || string(d.ServerInfo) != tt.info || d.Instructions != tt.instr {
			t.Errorf("%s: %+v", tt.name, d)
		}
		if tt.modern && string(d.Result) != tt.result {
			t.Errorf("%s: Result %s, want the result itself", tt.name, d.Result)
		}
		answer := answerOf(200, jsonH, `{"jsonrpc":"2.0","id":"watchdog-1","result":`+tt.result+`}`)
		if read := ReadDiscovery(answer); !reflect.DeepEqual(read, d) {
			t.Errorf("%s: ReadDiscovery %+v, DiscoveryOf %+v", tt.name, read, d)
		}
	}
}
