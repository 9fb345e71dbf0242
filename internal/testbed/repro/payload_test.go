package repro

import (
	"github.com/mcpwatchdog/watchdog/internal/fsutil"

	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func payloadDir(t *testing.T) string {
	t.Helper()
	root, err := fsutil.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "healer", "clientpatch", "payload")
}

// TestSessionLostPredicate runs the payload's __mcpWatchdogIsSessionLost
// in node on the error shapes the SDKs raise: only a POST answered 404, or
// 400 naming a missing/invalid/unknown/expired session, is a lost session.
func TestSessionLostPredicate(t *testing.T) {
	t.Parallel()
	post := "Streamable HTTP error: Error POSTing to endpoint: "
	cases := []struct {
		name string
		err  any
		want bool
	}{
		{"Go SDK 404", map[string]any{"code": 404, "message": post + "session not found"}, true},
		{"TS SDK 404", map[string]any{"code": 404, "message": post + `{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}`}, true},
		{"SDK 2 status", map[string]any{"status": 404, "message": post + "Not Found: Session not found"}, true},
		{"quirk 400", map[string]any{"code": 400, "message": post + `{"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}`}, true},
		{"400 invalid or missing", map[string]any{"code": 400, "message": post + "Invalid or missing session ID"}, true},
		{"400 expired", map[string]any{"code": 400, "message": post + "session expired"}, true},
		{"400 unknown", map[string]any{"code": 400, "message": post + "Unknown session"}, true},
		{"GET stream 404", map[string]any{"code": 404, "message": "Streamable HTTP error: Failed to open SSE stream: Not Found"}, false},
		{"GET reconnect", map[string]any{"message": "Failed to reconnect SSE stream: Streamable HTTP error: Failed to open SSE stream: Not Found"}, false},
		{"DELETE 404", map[string]any{"code": 404, "message": "Streamable HTTP error: Failed to terminate session: Not Found"}, false},
		{"400 other", map[string]any{"code": 400, "message": post + "Parse error: Invalid JSON"}, false},
		{"400 header required", map[string]any{"code": 400, "message": post + "Bad Request: Mcp-Session-Id header is required"}, false},
		{"500", map[string]any{"code": 500, "message": post + "Internal server error"}, false},
		{"401", map[string]any{"code": 401, "message": post + "Unauthorized"}, false},
		{"content type", map[string]any{"code": -1, "message": "Streamable HTTP error: Unexpected content type: text/html"}, false},
		{"network", map[string]any{"code": "ECONNREFUSED", "message": "fetch failed"}, false},
		{"string code 404", map[string]any{"code": "404", "message": post + "session not found"}, false},
		{"timeout", map[string]any{"code": -32001, "message": "MCP error -32001: Request timed out"}, false},
		{"no message", map[string]any{"code": 404}, false},
		{"null", nil, false},
		{"string", "Error POSTing to endpoint 404", false},
	}
	errs := make([]any, len(cases))
	for i, c := range cases {
		errs[i] = c.err
	}
	got := runPredicate(t, errs)
	for i, c := range cases {
		if got[i] != c.want {
			t.Errorf("%s: %v, want %v", c.name, got[i], c.want)
		}
	}
}

// runPredicate loads module.js as an ES module exporting the predicate and
// applies it to each error.
func runPredicate(t *testing.T, errs []any) []bool {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(payloadDir(t), "module.js"))
	if err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(t.TempDir(), "payload.mjs")
	if err := os.WriteFile(mod, append(src, "\nexport { __mcpWatchdogIsSessionLost };\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(errs)
	if err != nil {
		t.Fatal(err)
	}
	script := `import { __mcpWatchdogIsSessionLost as lost } from ` + jsString("file://"+mod) + `;
console.log(JSON.stringify(JSON.parse(process.argv[1]).map((e) => lost(e))));`
	out, err := exec.CommandContext(t.Context(), "node", "--input-type=module", "-e", script, string(in)).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got []bool
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(errs) {
		t.Fatalf("node printed %q (%v)", out, err)
	}
	return got
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestPayloadRules: no imports, no marker text, and every name the payload
// adds to the client's scope is prefixed __mcpWatchdog.
func TestPayloadRules(t *testing.T) {
	t.Parallel()
	decl := regexp.MustCompile(`^(?:async\s+)?(?:function\*?|const|let|var|class)\s+([A-Za-z_$][\w$]*)`)
	for _, part := range []string{"module", "onerror", "register", "dispose", "retry"} {
		b, err := os.ReadFile(filepath.Join(payloadDir(t), part+".js"))
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		if strings.Contains(src, "mcp-watchdog:") {
			t.Errorf("%s.js contains the marker tag mcp-watchdog:", part)
		}
		for i, line := range strings.Split(src, "\n") {
			if regexp.MustCompile(`^\s*import[\s{*("']`).MatchString(line) {
				t.Errorf("%s.js:%d: import statement", part, i+1)
			}
			// Top-level declarations start in column 0.
			if m := decl.FindStringSubmatch(line); m != nil && !strings.HasPrefix(m[1], "__mcpWatchdog") {
				t.Errorf("%s.js:%d: %s is not prefixed __mcpWatchdog", part, i+1, m[1])
			}
		}
	}
}
