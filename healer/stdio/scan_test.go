package stdio

import (
	"encoding/json"
	"testing"
)

func TestScanReadsTopLevelFields(t *testing.T) {
	cases := []struct {
		line               string
		id, method         string
		result, err, batch bool
		object             bool
	}{
		{line: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"id":9,"method":"x"}}`, id: "1", method: "initialize", object: true},
		{line: `{"result":{"id":"inner"},"jsonrpc":"2.0","id":"abc"}`, id: `"abc"`, result: true, object: true},
		{line: ` { "id" : 12 , "error" : {"code":-1,"message":"a \"quoted\" }"} }`, id: "12", err: true, object: true},
		{line: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, method: "notifications/initialized", object: true},
		{line: `{"id":null,"error":{}}`, err: true, object: true},
		{line: `{"\u0069d":5,"method":"ping"}`, id: "5", method: "ping", object: true},
		{line: `{"params":[1,{"a":[2]}],"id":[3],"method":"m"}`, id: "[3]", method: "m", object: true},
		{line: `[{"id":1}]`, batch: true},
		{line: `Server listening on stdio`},
		{line: ``},
	}
	for _, c := range cases {
		f := scan([]byte(c.line))
		if string(f.ID) != c.id || f.Method != c.method || f.Result != c.result || f.Error != c.err || f.Batch != c.batch || f.Object != c.object {
			t.Errorf("scan(%s) = id %s method %q result %v error %v batch %v object %v", c.line, f.ID, f.Method, f.Result, f.Error, f.Batch, f.Object)
		}
		if f.ID != nil && c.line[f.idAt:f.idEnd] != c.id {
			t.Errorf("scan(%s): id at %d..%d is %q", c.line, f.idAt, f.idEnd, c.line[f.idAt:f.idEnd])
		}
	}
}

// FuzzScan holds scan to what encoding/json reads of a message's top
// level: the id's raw bytes, the method, and which of result and error
// are there, for any line that is a JSON object.
func FuzzScan(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, `{"id":"a","result":{"x":[1,2,"}"]}}`,
		`{"id":1.5e3,"error":{"code":1}}`, `{"method":"a\"b","id":-0}`, `{"id" : "\\\"" }`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(line, &m) != nil || m == nil {
			return
		}
		got := scan(line)
		if !got.Object {
			t.Fatalf("scan(%s): not an object", line)
		}
		want := m["id"]
		if string(want) == "null" || len(want) >= maxField {
			want = nil
		}
		if want != nil && string(got.ID) != compact(want) && string(got.ID) != string(want) {
			t.Fatalf("scan(%s): id %s, want %s", line, got.ID, want)
		}
		var method string
		if raw, ok := m["method"]; ok && len(raw) < maxField {
			if json.Unmarshal(raw, &method) != nil {
				method = ""
			}
		}
		if got.Method != method {
			t.Fatalf("scan(%s): method %q, want %q", line, got.Method, method)
		}
		_, res := m["result"]
		_, er := m["error"]
		if got.Result != res || got.Error != er {
			t.Fatalf("scan(%s): result %v error %v, want %v %v", line, got.Result, got.Error, res, er)
		}
	})
}

func compact(b []byte) string {
	var out []byte
	out, _ = json.Marshal(json.RawMessage(b))
	return string(out)
}
