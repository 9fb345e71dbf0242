package repro

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"
)

func payloadDir(t *testing.T) string {
	t.Helper()
	root, err := repo.Root()
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
	// SDK 2 (@modelcontextprotocol/client) builds SdkHttpError(code, message,
	// {status, statusText, text}): a string code, no "Streamable HTTP error:"
	// prefix, and the status in data (read by a .status getter on the class).
	post2 := "Error POSTing to endpoint: "
	sdk2 := func(code string, status int, message string) map[string]any {
		return map[string]any{"code": code, "data": map[string]any{"status": status, "statusText": http.StatusText(status)}, "message": message}
	}
	onObject := sdk2("CLIENT_HTTP_NOT_IMPLEMENTED", 404, post2+"session not found\n")
	onObject["status"] = 404
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
		{"SDK 2 404", sdk2("CLIENT_HTTP_NOT_IMPLEMENTED", 404, post2+"session not found\n"), true},
		{"SDK 2 404 status on object", onObject, true},
		{"SDK 2 GET stream 404", sdk2("CLIENT_HTTP_FAILED_TO_OPEN_STREAM", 404, "Failed to open SSE stream: Not Found"), false},
		{"SDK 2 session expired (PR 2660)", sdk2("CLIENT_HTTP_SESSION_EXPIRED", 404, `Session expired (HTTP 404): {"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}`), true},
		{"SDK 2 quirk 400", sdk2("CLIENT_HTTP_NOT_IMPLEMENTED", 400, post2+`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`), true},
		{"SDK 2 500", sdk2("CLIENT_HTTP_NOT_IMPLEMENTED", 500, post2+"Internal Server Error\n"), false},
		{"SDK 2 401", sdk2("CLIENT_HTTP_NOT_IMPLEMENTED", 401, post2+"Unauthorized"), false},
		{"SDK 2 401 after re-auth", sdk2("CLIENT_HTTP_AUTHENTICATION", 401, "Server returned 401 after re-authentication"), false},
		{"SDK 2 timeout", map[string]any{"code": "REQUEST_TIMEOUT", "data": map[string]any{"timeout": 300}, "message": "Request timed out"}, false},
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

// sdk2Classes are SDK 2's error classes as its source builds them
// (packages/core-internal/src/errors/sdkErrors.ts): the HTTP status lives in
// data, and .status is a getter on the prototype, not an own property.
const sdk2Classes = `
class SdkError extends Error { constructor(code, message, data, options) { super(message, options); this.code = code; this.data = data; this.name = 'SdkError'; } }
class SdkHttpError extends SdkError { constructor(code, message, data, options) { super(code, message, data, options); this.name = 'SdkHttpError'; } get status() { return this.data.status; } get statusText() { return this.data.statusText; } }
`

// TestSessionLostPredicateSDK2Classes runs the predicate on real SdkHttpError
// instances, getter and all, which the JSON rows above cannot be; it covers the
// proposed session-expired code, which no released SDK throws yet.
func TestSessionLostPredicateSDK2Classes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, expr string
		want       bool
	}{
		{"POST 404", `new SdkHttpError("CLIENT_HTTP_NOT_IMPLEMENTED", "Error POSTing to endpoint: session not found\n", {status: 404, statusText: "Not Found", text: "session not found\n"})`, true},
		{"POST 400 quirk", `new SdkHttpError("CLIENT_HTTP_NOT_IMPLEMENTED", 'Error POSTing to endpoint: {"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}', {status: 400, statusText: "Bad Request"})`, true},
		{"session expired", `new SdkHttpError("CLIENT_HTTP_SESSION_EXPIRED", "Session expired (HTTP 404): Not Found", {status: 404, statusText: "Not Found"})`, true},
		{"GET stream 404", `new SdkHttpError("CLIENT_HTTP_FAILED_TO_OPEN_STREAM", "Failed to open SSE stream: Not Found", {status: 404, statusText: "Not Found"})`, false},
		{"POST 500", `new SdkHttpError("CLIENT_HTTP_NOT_IMPLEMENTED", "Error POSTing to endpoint: Internal Server Error\n", {status: 500, statusText: "Internal Server Error"})`, false},
		{"POST 401", `new SdkHttpError("CLIENT_HTTP_NOT_IMPLEMENTED", "Error POSTing to endpoint: Unauthorized", {status: 401, statusText: "Unauthorized"})`, false},
		{"timeout", `new SdkError("REQUEST_TIMEOUT", "Request timed out", {timeout: 300})`, false},
	}
	exprs := make([]string, len(cases))
	for i, c := range cases {
		exprs[i] = c.expr
	}
	script := `import { __mcpWatchdogIsSessionLost as lost } from ` + jsString("file://"+predicateModule(t)) + `;` + sdk2Classes +
		`console.log(JSON.stringify([` + strings.Join(exprs, ",\n") + `].map((e) => lost(e))));`
	got := runNode(t, script, len(cases))
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
	mod := predicateModule(t)
	in, err := json.Marshal(errs)
	if err != nil {
		t.Fatal(err)
	}
	script := `import { __mcpWatchdogIsSessionLost as lost } from ` + jsString("file://"+mod) + `;
console.log(JSON.stringify(JSON.parse(process.argv[1]).map((e) => lost(e))));`
	return runNode(t, script, len(errs), string(in))
}

// runNode runs an ES module script that prints a JSON array of n verdicts.
func runNode(t *testing.T, script string, n int, args ...string) []bool {
	t.Helper()
	argv := append([]string{"--input-type=module", "-e", script}, args...)
	out, err := exec.CommandContext(t.Context(), "node", argv...).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got []bool
	if err := json.Unmarshal(out, &got); err != nil || len(got) != n {
		t.Fatalf("node printed %q (%v)", out, err)
	}
	return got
}

// predicateModule writes module.js, plus an export of the predicate, as an ES
// module in a temp dir and returns its path: the payload itself has no exports,
// since the patch splices it into the client's own module.
func predicateModule(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(payloadDir(t), "module.js"))
	if err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(t.TempDir(), "payload.mjs")
	if err := os.WriteFile(mod, append(src, "\nexport { __mcpWatchdogIsSessionLost };\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	return mod
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
	files, err := filepath.Glob(filepath.Join(payloadDir(t), "*.js"))
	if err != nil || len(files) < 6 {
		t.Fatalf("payloads %v (%v), want the six blocks", files, err)
	}
	for _, file := range files {
		part := strings.TrimSuffix(filepath.Base(file), ".js")
		b, err := os.ReadFile(file)
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
